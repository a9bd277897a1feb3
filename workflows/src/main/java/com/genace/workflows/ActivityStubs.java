package com.genace.workflows;

import com.genace.client.TaskQueues;
import com.genace.workflows.delivery.DeliveryActivities;
import com.genace.workflows.dispatch.DispatchActivities;
import com.genace.workflows.lifecycle.CancelActivities;
import com.genace.workflows.observation.ObservationActivities;
import com.genace.workflows.registration.RegistrationActivities;
import com.genace.workflows.review.EvidenceActivities;
import com.genace.workflows.review.ReviewActivities;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Every activity the workflow schedules, with its queue, timeouts and retries, and the summary the
 * Web UI shows for it. Creating a stub schedules nothing; calling it does. {@code
 * ActivityStubsTest} holds the saved histories to these options: replay alone does not compare
 * them.
 */
final class ActivityStubs {

  private static final RetryOptions RETRY_FREELY =
      RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(1))
          .setBackoffCoefficient(2)
          .setMaximumInterval(Duration.ofMinutes(1))
          .build();

  static final ActivityOptions LEDGER_STEP =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RETRY_FREELY)
          .build();

  /**
   * Reads Genace only; the evidence activity repeats the search itself for its short window, hence
   * the longer timeout. A Genace that stays unreachable leaves the review without evidence.
   */
  static final ActivityOptions EVIDENCE =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofMinutes(2))
          .setRetryOptions(RetryOptions.newBuilder(RETRY_FREELY).setMaximumAttempts(5).build())
          .build();

  /** Reads one job an operator named; a Genace unreachable for every attempt refuses the job. */
  static final ActivityOptions CHECK_JOB =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(
              RetryOptions.newBuilder(RETRY_FREELY)
                  .setMaximumInterval(Duration.ofSeconds(5))
                  .setMaximumAttempts(4)
                  .build())
          .build();

  /**
   * Never retried: a second POST could pay for a second render. The timeout comes per request. A
   * cancel request waits for the attempt's outcome ({@code WAIT_CANCELLATION_COMPLETED}): Temporal
   * cancels an attempt no worker has started, and one that started reports what its POST did.
   */
  static final ActivityOptions DISPATCH =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.DISPATCH)
          .setStartToCloseTimeout(Duration.ofMinutes(2))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
          .build();

  /**
   * How long the first dispatch attempt, which also registers the operation, waits in its queue for
   * a dispatch worker before the workflow registers it with {@link #LEDGER_STEP} and dispatches it
   * as usual (none polls while dispatch is paused): how late an operation appears in the ledger at
   * worst.
   */
  static final Duration FIRST_DISPATCH_WAIT = Duration.ofSeconds(15);

  /**
   * Observation's retries follow a timeout (a crashed or frozen worker), as pacing comes from
   * elsewhere: soon, hence the low maximum.
   */
  private static final RetryOptions OBSERVATION_RETRIES =
      RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(1))
          .setBackoffCoefficient(2)
          .setMaximumInterval(Duration.ofSeconds(5))
          .build();

  /**
   * Waits for a poll loop's answer. The attempt itself only names itself on the poll schedule (and
   * reads the job's status once), and no heartbeat is needed: the operation is on the schedule from
   * the write that made it observe, a crashed worker's status polls are taken over through the
   * ledger, and the loop that sees the end completes this activity by id, asking Temporal which
   * attempt waits when none registered (one handed to a worker that froze before it ran). The
   * start-to-close timeout is only a net under that, so it is long: each timeout costs Temporal an
   * attempt, once per half an hour of render.
   */
  static final ActivityOptions AWAIT_REMOTE_JOB =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OBSERVATION)
          .setStartToCloseTimeout(Duration.ofMinutes(30))
          .setRetryOptions(OBSERVATION_RETRIES)
          .build();

  static final ActivityOptions DELIVER =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofMinutes(30))
          .setHeartbeatTimeout(Duration.ofSeconds(60))
          .setRetryOptions(RETRY_FREELY)
          .build();

  private ActivityStubs() {}

  static RegistrationActivities registration(String summary) {
    return stub(RegistrationActivities.class, LEDGER_STEP, summary);
  }

  /** The review's ledger steps. */
  static ReviewActivities ledger(String summary) {
    return stub(ReviewActivities.class, LEDGER_STEP, summary);
  }

  static CancelActivities cancellation(String summary) {
    return stub(CancelActivities.class, LEDGER_STEP, summary);
  }

  static EvidenceActivities evidence(String summary) {
    return stub(EvidenceActivities.class, EVIDENCE, summary);
  }

  static EvidenceActivities jobCheck(String summary) {
    return stub(EvidenceActivities.class, CHECK_JOB, summary);
  }

  static DispatchActivities dispatch(String summary, Duration timeout) {
    return stub(
        DispatchActivities.class,
        ActivityOptions.newBuilder(DISPATCH).setStartToCloseTimeout(timeout).build(),
        summary);
  }

  /** {@link #dispatch} for the first attempt: it registers too, and waits in its queue briefly. */
  static DispatchActivities firstDispatch(String summary, Duration timeout) {
    return stub(
        DispatchActivities.class,
        ActivityOptions.newBuilder(DISPATCH)
            .setStartToCloseTimeout(timeout)
            .setScheduleToStartTimeout(FIRST_DISPATCH_WAIT)
            .build(),
        summary);
  }

  static ObservationActivities observation(String summary) {
    return stub(ObservationActivities.class, AWAIT_REMOTE_JOB, summary);
  }

  static DeliveryActivities delivery(String summary) {
    return stub(DeliveryActivities.class, DELIVER, summary);
  }

  private static <T> T stub(Class<T> type, ActivityOptions options, String summary) {
    return Workflow.newActivityStub(
        type, ActivityOptions.newBuilder(options).setSummary(summary).build());
  }
}
