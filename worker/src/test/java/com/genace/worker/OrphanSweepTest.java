package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import com.genace.workflows.lifecycle.SweepReport;
import com.genace.workflows.lifecycle.SweepWorkflow;
import com.genace.workflows.lifecycle.SweepWorkflowImpl;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A workflow that ends without running any code of ours (terminated, timed out) leaves its ledger
 * row unfinished; the sweeper workflow (run here directly: the Java test server has no schedules)
 * starts a run that observes the job the row or the history holds, or, when neither store shows
 * one, puts the row in review and starts a run that waits for its resolution. Only those: a running
 * workflow, one that continued as new (its successor runs) and a finished operation are left alone
 * (a paused one too: the test server cannot pause, see OrphanStatusTest).
 */
@ExtendWith(DatabaseExtension.class)
class OrphanSweepTest {

  @TempDir Path artifacts;

  /** Refused resolutions enough to pass a run's history budget (2,000 events) by themselves. */
  private static final int FLOOD = 2_500;

  private GenerationHarness harness;
  private final AtomicInteger sweeps = new AtomicInteger();

  @BeforeEach
  void start() {
    harness = new GenerationHarness(artifacts);
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(600_000));
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  private SweepReport sweep() {
    return harness.sweep(sweeps.incrementAndGet());
  }

  /** Sweeps until the operation is found: a status poll may still hold the closed run's lease. */
  private void sweepUntilOrphan(String operationId) {
    await().atMost(Duration.ofSeconds(30)).until(() -> sweep().orphans().contains(operationId));
  }

  private WorkflowExecutionStatus status(String operationId) {
    return harness
        .temporal
        .getWorkflowClient()
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId(operationId))
        .describe()
        .getStatus();
  }

  @Test
  void a_terminated_operation_observing_its_job_is_observed_and_delivered_by_a_new_run()
      throws Exception {
    // Long enough to be terminated while rendering, short enough to be delivered after.
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(8000));
    harness.client.start(request("op-terminated"));
    OperationRow observing = harness.awaitPhase("op-terminated", Phase.OBSERVING);
    harness
        .temporal
        .getWorkflowClient()
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-terminated"))
        .terminate("clicked in the Web UI");

    sweepUntilOrphan("op-terminated");
    harness.replayAndRecordPass(
        SweepWorkflow.WORKFLOW_ID + "-" + sweeps.get(),
        SweepWorkflowImpl.class,
        "sweep-histories",
        "sweep-resumed-one-observation");

    // The row holds the job Genace accepted: no review, and nothing for an operator to answer.
    assertThat(harness.ledger.history("op-terminated"))
        .noneMatch(t -> t.event().equals("workflow_closed"));
    OperationResult result = harness.client.awaitResult("op-terminated", Duration.ofMinutes(2));

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.remoteJobId()).isEqualTo(observing.remoteJobId().orElseThrow());
    harness.replayAndRecord("op-terminated", "swept-observation-resumed");
    assertThat(harness.postsFor("op-terminated")).isEqualTo(1);
  }

  @Test
  void a_run_timeout_in_review_with_no_job_keeps_its_review_and_can_be_abandoned()
      throws Exception {
    // The POST's response is lost: a review with no job anywhere, neither store showing one.
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
    WorkflowClient client = harness.temporal.getWorkflowClient();
    GenerationWorkflow workflow =
        client.newWorkflowStub(
            GenerationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(GenerationWorkflow.workflowId("op-timeout"))
                .setTaskQueue(TaskQueues.OPERATIONS)
                .setWorkflowRunTimeout(Duration.ofSeconds(30))
                .build());
    WorkflowClient.start(workflow::run, request("op-timeout"), null);
    harness.awaitPhase("op-timeout", Phase.IN_REVIEW);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                status("op-timeout") != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    WorkflowExecutionStatus closed = status("op-timeout");
    assertThat(closed).isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT);

    sweepUntilOrphan("op-timeout");

    assertThat(harness.row("op-timeout").reviewReason())
        .contains(ReviewReason.POST_OUTCOME_UNKNOWN.wire());
    assertThat(harness.ledger.history("op-timeout"))
        .filteredOn(t -> t.event().equals("workflow_closed"))
        .singleElement()
        .satisfies(
            t ->
                assertThat(t.detailsJson())
                    .contains("TIMED_OUT", "no job in either store", "Temporal holds 1 run(s)"));
    await().until(() -> harness.client.describe("op-timeout").phase() == Phase.IN_REVIEW);
    harness.client.resolve(
        "op-timeout", new ReviewResolution("abandon", null, "timed out on purpose", "bob"));
    OperationResult result = harness.client.awaitResult("op-timeout", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(harness.row("op-timeout").phase()).isEqualTo(Phase.ABANDONED);
    assertThat(harness.postsFor("op-timeout")).isEqualTo(1);
  }

  @Test
  void running_and_finished_operations_are_left_alone() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(100));
    harness.client.start(request("op-finished"));
    assertThat(harness.client.awaitResult("op-finished", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.DELIVERED);
    await()
        .until(
            () ->
                status("op-finished")
                    == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    List<TransitionRow> finishedHistory = harness.ledger.history("op-finished");
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(600_000));
    harness.client.start(request("op-running"));
    harness.awaitPhase("op-running", Phase.OBSERVING);

    SweepReport report = sweep();

    assertThat(report.checked()).as("unfinished operations checked: the running one").isEqualTo(1);
    assertThat(report.orphans()).isEmpty();
    assertThat(harness.row("op-running").phase()).isEqualTo(Phase.OBSERVING);
    assertThat(harness.row("op-finished").phase()).isEqualTo(Phase.DELIVERED);
    assertThat(harness.ledger.history("op-finished")).isEqualTo(finishedHistory);
    assertThat(status("op-finished"))
        .as("no run started again for a finished operation")
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
  }

  @Test
  void an_operation_whose_workflow_continued_as_new_is_left_alone() {
    // A review wait flooded with refused resolutions while no worker polls: the run takes the
    // flood in one workflow task and continues as new (as LongWaitsTest's flood does).
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
    harness.client.start(request("op-continued"));
    harness.awaitPhase("op-continued", Phase.IN_REVIEW);
    await().until(() -> harness.client.describe("op-continued").awaitsOperator());
    WorkflowStub workflow =
        harness
            .temporal
            .getWorkflowClient()
            .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-continued"));
    harness.temporal.getWorkerFactory().suspendPolling();
    for (int i = 0; i < FLOOD; i++) {
      workflow.signal(GenerationWorkflow.RESOLUTION_SIGNAL, "not a resolution " + i);
    }
    harness.temporal.getWorkerFactory().resumePolling();
    await().atMost(Duration.ofSeconds(60)).until(() -> harness.runs("op-continued").size() == 2);
    List<WorkflowExecutionHistory> runs = harness.runs("op-continued");
    assertThat(runs.get(0).getLastEvent().getEventType())
        .isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    await().until(() -> harness.client.describe("op-continued").awaitsOperator());

    SweepReport report = sweep();

    assertThat(report.checked()).isEqualTo(1);
    assertThat(report.orphans()).isEmpty();
    assertThat(harness.ledger.history("op-continued"))
        .noneMatch(t -> t.event().equals("workflow_closed"));
    assertThat(harness.row("op-continued").phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(harness.row("op-continued").reviewReason())
        .contains(ReviewReason.POST_OUTCOME_UNKNOWN.wire());
    assertThat(harness.runs("op-continued")).as("no run started by the sweeper").hasSize(2);
    assertThat(status("op-continued"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
  }
}
