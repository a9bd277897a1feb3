package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static com.genace.workflows.GenerationSearchAttributes.NEEDS_REVIEW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.model.Phase;
import com.genace.model.ReviewReason;
import com.genace.review.ReviewResolution;
import com.genace.testing.DatabaseExtension;
import com.genace.worker.support.GenerationHarness;
import com.genace.workflows.CarriedState;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.GenerationWorkflow;
import com.genace.workflows.OperationResult;
import com.genace.workflows.OperationView;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operations that wait a month, on the time-skipping test server: each continues as new while it
 * waits, so that no run's history passes the budget, and then ends as it would have after a short
 * wait, with one POST.
 */
@ExtendWith(DatabaseExtension.class)
class LongWaitsTest {

  static final Duration MONTH = Duration.ofDays(30);

  /** The budget, plus the events of the turn during which it was passed. */
  static final long LONGEST_RUN = 2_000 + 40;

  /** Refused signals enough to fill a run's budget by themselves. */
  static final int FLOOD = 2_500;

  /** A review's events up to its wait, with room to spare. */
  static final int REVIEW_EVENTS = 100;

  @TempDir Path artifacts;

  @Test
  void a_month_without_credits_continues_as_new_and_then_delivers_once() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.allowanceExhausted.set(true);
      harness.client.start(request("op-month-credits"));
      harness.temporal.sleep(MONTH);
      harness.allowanceExhausted.set(false);

      OperationResult result =
          harness.client.awaitResult("op-month-credits", Duration.ofMinutes(20));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.postsFor("op-month-credits")).isEqualTo(1);
      assertThat(harness.row("op-month-credits").dispatchAttempts()).isEqualTo(1);
      assertRunsShort(harness.runs("op-month-credits"), LONGEST_RUN);
      harness.replayAndRecordRuns(
          "op-month-credits", "continued-allowance-exhausted-then-delivered");
    }
  }

  @Test
  void a_month_of_429s_continues_as_new_and_then_delivers_once() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withRate429(1));
      harness.client.start(request("op-month-429"));
      harness.temporal.sleep(MONTH);
      harness.simulator.setFaults(harness.simulator.faults().withRate429(0));

      OperationResult result = harness.client.awaitResult("op-month-429", Duration.ofMinutes(20));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.row("op-month-429").dispatchAttempts())
          .as("a 429 is an attempt: Genace answered it")
          .isGreaterThan(1000);
      assertThat(harness.simulator.stats().jobsCreated()).isEqualTo(1);
      assertRunsShort(harness.runs("op-month-429"), LONGEST_RUN);
      harness.replayAndRecordRuns("op-month-429", "continued-rate-limited-then-delivered");
    }
  }

  @Test
  void a_review_left_open_a_month_and_flooded_with_refusals_is_resolved_in_its_latest_run()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
      harness.client.start(request("op-month-review"));
      harness.awaitPhase("op-month-review", Phase.IN_REVIEW);
      await().until(() -> harness.client.describe("op-month-review").awaitsOperator());
      WorkflowStub workflow =
          harness
              .temporal
              .getWorkflowClient()
              .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-month-review"));
      // Sent while no worker polls, the flood is one workflow task's work: the run continues as
      // new right after it. (A real server also refuses a continue-as-new that signals arriving
      // meanwhile would miss, and the task is run again; the test server loses such a run.)
      harness.temporal.getWorkerFactory().suspendPolling();
      for (int i = 0; i < FLOOD; i++) {
        workflow.signal(GenerationClient.RESOLUTION_SIGNAL, "not a resolution " + i);
      }
      harness.temporal.getWorkerFactory().resumePolling();
      harness.temporal.sleep(MONTH);

      OperationView waiting = harness.client.describe("op-month-review");
      assertThat(waiting.phase()).isEqualTo(Phase.IN_REVIEW);
      assertThat(waiting.awaitsOperator()).isTrue();
      assertThat(waiting.review().reason()).isEqualTo(ReviewReason.POST_OUTCOME_UNKNOWN);
      assertThat(waiting.rejectedResolutions())
          .hasSize(CarriedState.REFUSALS_CARRIED)
          .last()
          .asString()
          .contains("not a resolution " + (FLOOD - 1));
      assertThat(workflow.describe().getTypedSearchAttributes().get(NEEDS_REVIEW)).isTrue();
      WorkflowMetadata metadata =
          workflow.query("__temporal_workflow_metadata", WorkflowMetadata.class);
      assertThat(metadata.getCurrentDetails())
          .startsWith("**in_review**")
          .contains("The latest resolution was refused")
          .contains("resolveReconciliation");

      assertThat(harness.client.start(request("op-month-review")).alreadyExisted())
          .as("starting it again joins the latest run")
          .isTrue();

      String job = waiting.review().evidence().candidates().get(0).id();
      harness.client.resolve(
          "op-month-review",
          new ReviewResolution("found_remote_job", job, "found it on Genace", "alice"));
      OperationResult result = harness.client.awaitResult("op-month-review", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(result.remoteJobId()).isEqualTo(job);
      assertThat(harness.postsFor("op-month-review")).isEqualTo(1);
      // The flooded run ends in the workflow task that took the flood in.
      assertRunsShort(harness.runs("op-month-review"), FLOOD + REVIEW_EVENTS);
      harness.replayAndRecordRuns("op-month-review", "continued-review-found-remote-job");
    }
  }

  private static void assertRunsShort(List<WorkflowExecutionHistory> runs, long longest) {
    assertThat(runs).as("runs of a month's wait").hasSizeGreaterThan(1);
    for (WorkflowExecutionHistory run : runs.subList(0, runs.size() - 1)) {
      assertThat(run.getLastEvent().getEventType())
          .isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    }
    for (WorkflowExecutionHistory run : runs) {
      assertThat(run.getEvents()).hasSizeLessThanOrEqualTo((int) longest);
    }
  }
}
