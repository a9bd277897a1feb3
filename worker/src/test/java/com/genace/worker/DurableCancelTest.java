package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.CancelRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import com.genace.workflows.lifecycle.SweepWorkflow;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cancel outlives the run that accepted it (issue 40, item 1): the ledger row holds it, so a run
 * the sweeper restarts from the row never sends a POST after it, even when an operator then says
 * {@code not_submitted}. The reproduction of the issue, step by step, printing its figures.
 */
@ExtendWith(DatabaseExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DurableCancelTest {

  @TempDir Path artifacts;
  private GenerationHarness harness;
  private final AtomicInteger sweeps = new AtomicInteger();

  @BeforeEach
  void start() {
    harness = new GenerationHarness(artifacts);
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  /** One pass of the sweeper's workflow (the Java test server has no schedules). */
  private boolean sweepFinds(String operationId) {
    return harness
        .temporal
        .getWorkflowClient()
        .newWorkflowStub(
            SweepWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(SweepWorkflow.WORKFLOW_ID + "-" + sweeps.incrementAndGet())
                .setTaskQueue(TaskQueues.OPERATIONS)
                .build())
        .sweep()
        .orphans()
        .contains(operationId);
  }

  @Test
  void a_cancelled_operation_restarted_by_the_sweeper_sends_no_post_after_not_submitted()
      throws Exception {
    // Genace slow and losing the POST's response; it offers no search, so the evidence cannot
    // show the job the lost POST created.
    harness.simulator.setFaults(
        harness
            .simulator
            .faults()
            .withLatencyMs(1500)
            .withLosePostResponseNext(1)
            .withSearchEnabled(false));
    harness.client.start(request("op-durable"));
    harness.awaitPhase("op-durable", Phase.SUBMITTING);

    String answer = harness.client.cancel("op-durable", new CancelRequest("customer left", "shop"));
    // The outcome is unknown: the cancelled operation waits in review for an operator.
    await().until(() -> harness.client.describe("op-durable").awaitsOperator());
    harness
        .temporal
        .getWorkflowClient()
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-durable"))
        .terminate("terminated from outside");
    await().atMost(Duration.ofSeconds(30)).until(() -> sweepFinds("op-durable"));
    await().until(() -> harness.client.describe("op-durable").awaitsOperator());

    String resolved =
        harness.client.resolve(
            "op-durable",
            new ReviewResolution("not_submitted", null, "nothing in the dashboard", "alice"));
    OperationResult result = harness.client.awaitResult("op-durable", Duration.ofMinutes(2));

    long posts = harness.postsFor("op-durable");
    int jobs = harness.simulator.jobsForOperation("op-durable").size();
    System.out.println(
        "durable cancel: posts=" + posts + " jobs=" + jobs + " phase=" + result.phase().wire());
    assertThat(answer).contains("cancelling from phase submitting");
    assertThat(resolved).contains("accepted not_submitted");
    assertThat(posts).as("POSTs: the cancel promises none after not_submitted").isEqualTo(1);
    assertThat(jobs).isEqualTo(1);
    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(result.detail()).contains("cancelled by shop: customer left");
    OperationRow row = harness.row("op-durable");
    assertThat(row.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(row.dispatchAttempts()).isEqualTo(1);
    assertThat(row.cancelRequestedBy()).contains("shop");
    assertThat(row.cancelReason()).contains("customer left");
    assertThat(row.failureReason()).hasValueSatisfying(r -> assertThat(r).contains("shop"));
    harness.replayAndRecord("op-durable", "cancel-swept-review-not-submitted");
  }
}
