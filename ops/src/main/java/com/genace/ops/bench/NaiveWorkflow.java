package com.genace.ops.bench;

import com.genace.activities.genace.JobOutput;
import com.genace.activities.observation.PollingPolicy;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.List;

/**
 * The end-to-end bench's honest baseline: a plain Temporal workflow that calls Genace, as one would
 * write it without this project. Three activities make the same HTTP calls as ours (the POST, GETs
 * until the render is done, the copy of each output into the same artifact store) with ordinary
 * retry policies, and nothing else: no ledger, no lease, no review, no search attributes. Its POST
 * is retried like any other step, which is exactly what makes it unsafe: a lost response pays for a
 * second render. Never a product path.
 */
@WorkflowInterface
public interface NaiveWorkflow {

  String TASK_QUEUE = "genace-bench-naive";

  /**
   * @param pollMaxSeconds the slowest pace of the status polls, the worker's {@code
   *     GENACE_POLL_MAX_SECONDS}
   */
  record Request(String operationId, String model, String inputJson, long pollMaxSeconds) {}

  /** Returns how many outputs it stored. */
  @WorkflowMethod
  int run(Request request);

  @ActivityInterface
  interface Steps {

    /** The POST; returns the job's id, or fails (and is retried) when it was not accepted. */
    String submit(String operationId, String model, String inputJson);

    /** One GET per attempt; fails, to be retried at the poll pace, until the render ended. */
    List<JobOutput> awaitOutputs(String remoteJobId);

    /** Streams each output into the store; returns how many. */
    int copyOutputs(String operationId, String remoteJobId, List<JobOutput> outputs);
  }

  /** Registered with the naive worker. */
  final class Impl implements NaiveWorkflow {

    /** The SDK's default retries (1 s doubling to 100 s, without end), as for any step. */
    private static final RetryOptions ORDINARY = RetryOptions.newBuilder().build();

    /** The POST's timeout, as ours has by default. */
    private static final Duration SUBMIT_TIMEOUT = Duration.ofMinutes(2);

    /** One GET: Genace's read timeout (30 s by default) with room to spare. */
    private static final Duration POLL_TIMEOUT = Duration.ofMinutes(1);

    /** The copy's timeout, as ours has. */
    private static final Duration COPY_TIMEOUT = Duration.ofMinutes(30);

    @Override
    public int run(Request request) {
      String jobId =
          steps(SUBMIT_TIMEOUT, ORDINARY)
              .submit(request.operationId(), request.model(), request.inputJson());
      List<JobOutput> outputs =
          steps(POLL_TIMEOUT, pollPace(Duration.ofSeconds(request.pollMaxSeconds())))
              .awaitOutputs(jobId);
      return steps(COPY_TIMEOUT, ORDINARY).copyOutputs(request.operationId(), jobId, outputs);
    }

    /**
     * Our status polls' backoff ({@link PollingPolicy#DEFAULT}: 1 s growing by 1.5 to the maximum)
     * as the retry policy of the polling activity. Temporal's retry timer has no jitter, so this is
     * our pace less its ±20 %; its first GET, like ours, comes as soon as the activity runs.
     */
    static RetryOptions pollPace(Duration maxDelay) {
      return RetryOptions.newBuilder()
          .setInitialInterval(PollingPolicy.DEFAULT.initialDelay())
          .setBackoffCoefficient(PollingPolicy.DEFAULT.multiplier())
          .setMaximumInterval(maxDelay)
          .build();
    }

    private static Steps steps(Duration timeout, RetryOptions retries) {
      return Workflow.newActivityStub(
          Steps.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(timeout)
              .setRetryOptions(retries)
              .build());
    }
  }
}
