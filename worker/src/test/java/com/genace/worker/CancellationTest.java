package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.CancelRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationEndedException;
import com.genace.client.OperationNotFoundException;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cancel request, wherever the operation stands, ends it with the ledger row terminal and the
 * reason recorded: never with a POST, never forgetting a render Genace accepted.
 */
@ExtendWith(DatabaseExtension.class)
// A cancel update waits for the workflow's answer without a deadline: one the server never answers
// fails its test instead of stalling the build. In a thread of its own because a blocked long poll
// need not heed an interrupt; closing the harness afterwards ends it.
@Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CancellationTest {

  @TempDir Path artifacts;
  private GenerationHarness harness;

  @BeforeEach
  void start() {
    harness = new GenerationHarness(artifacts);
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  private OperationResult awaitResult(String operationId) throws Exception {
    return harness.client.awaitResult(operationId, Duration.ofMinutes(2));
  }

  private void slowRenders() {
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(600_000));
  }

  @Test
  void a_pending_operation_ends_abandoned_without_any_post() throws Exception {
    harness.dispatchClosed.set("dispatch paused by test");
    harness.client.start(request("op-pending"));
    await().until(() -> harness.turnedAway.get() > 0);

    String answer =
        harness.client.cancel("op-pending", new CancelRequest("order cancelled", "shop"));
    OperationResult result = awaitResult("op-pending");

    assertThat(answer).contains("cancelled by shop: order cancelled");
    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(result.detail()).contains("cancelled by shop: order cancelled");
    harness.dispatchClosed.set(null);
    harness.replayAndRecord("op-pending", "cancel-pending");
    OperationRow row = harness.row("op-pending");
    assertThat(row.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(row.failureReason()).contains("cancelled by shop: order cancelled");
    assertThat(row.dispatchAttempts()).isZero();
    assertThat(harness.postsFor("op-pending")).isZero();
    assertThat(harness.ledger.history("op-pending"))
        .extracting(TransitionRow::event)
        .containsExactly("created", "cancelled");
  }

  @Test
  void a_post_in_flight_that_is_accepted_is_recorded_and_the_operation_ends() throws Exception {
    slowRenders();
    harness.simulator.setFaults(harness.simulator.faults().withLatencyMs(1500));
    harness.client.start(request("op-flight"));
    harness.awaitPhase("op-flight", Phase.SUBMITTING);

    harness.client.cancel("op-flight", new CancelRequest("changed my mind", "shop"));
    OperationResult result = awaitResult("op-flight");

    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    harness.replayAndRecord("op-flight", "cancel-post-accepted");
    String job = harness.simulator.jobsForOperation("op-flight").get(0);
    assertThat(result.remoteJobId()).isEqualTo(job);
    OperationRow row = harness.row("op-flight");
    assertThat(row.remoteJobId()).contains(job);
    assertThat(row.dispatchOutcome()).contains("accepted");
    assertThat(row.failureReason()).contains("cancelled by shop: changed my mind");
    assertThat(harness.postsFor("op-flight")).isEqualTo(1);
  }

  @Test
  void a_post_in_flight_with_an_unknown_outcome_opens_a_review_that_can_be_abandoned()
      throws Exception {
    harness.simulator.setFaults(
        harness.simulator.faults().withLatencyMs(1500).withLosePostResponseNext(1));
    harness.client.start(request("op-unknown"));
    harness.awaitPhase("op-unknown", Phase.SUBMITTING);

    harness.client.cancel("op-unknown", new CancelRequest("customer left", "shop"));
    harness.awaitPhase("op-unknown", Phase.IN_REVIEW);
    await().until(() -> harness.client.describe("op-unknown").phase() == Phase.IN_REVIEW);
    assertThat(harness.row("op-unknown").reviewReason()).contains("post_outcome_unknown");
    String second = harness.client.cancel("op-unknown", new CancelRequest("again", "shop"));
    harness.client.resolve(
        "op-unknown", new ReviewResolution("abandon", null, "not worth looking", "alice"));
    OperationResult result = awaitResult("op-unknown");

    assertThat(second).contains("already cancelling");
    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(result.detail()).contains("cancelled by shop: customer left");
    harness.replayAndRecord("op-unknown", "cancel-post-unknown-review");
    assertThat(harness.row("op-unknown").reviewResolvedBy()).contains("alice");
    assertThat(harness.postsFor("op-unknown")).isEqualTo(1);
  }

  @Test
  void an_unknown_post_found_by_the_operator_ends_with_its_remote_job_recorded() throws Exception {
    slowRenders();
    harness.simulator.setFaults(
        harness.simulator.faults().withLatencyMs(1500).withLosePostResponseNext(1));
    harness.client.start(request("op-unknown-found"));
    harness.awaitPhase("op-unknown-found", Phase.SUBMITTING);
    harness.client.cancel("op-unknown-found", new CancelRequest("customer left", "shop"));
    await().until(() -> harness.client.describe("op-unknown-found").phase() == Phase.IN_REVIEW);

    String job = harness.simulator.jobsForOperation("op-unknown-found").get(0);
    harness.client.resolve(
        "op-unknown-found", new ReviewResolution("found_remote_job", job, "in dashboard", "bob"));
    OperationResult result = awaitResult("op-unknown-found");

    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(result.remoteJobId()).isEqualTo(job);
    assertThat(harness.row("op-unknown-found").remoteJobId()).contains(job);
    assertThat(harness.postsFor("op-unknown-found")).isEqualTo(1);
  }

  @Test
  void a_post_in_flight_that_creates_nothing_ends_abandoned_without_another_post()
      throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withLatencyMs(1500).withRate429(1.0));
    harness.client.start(request("op-limited"));
    harness.awaitPhase("op-limited", Phase.SUBMITTING);

    harness.client.cancel("op-limited", new CancelRequest("rate limited anyway", "shop"));
    OperationResult result = awaitResult("op-limited");

    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(result.remoteJobId()).isNull();
    OperationRow row = harness.row("op-limited");
    assertThat(row.dispatchOutcome()).contains("rate_limited");
    assertThat(row.remoteJobId()).isEmpty();
    assertThat(row.dispatchAttempts()).isEqualTo(1);
    assertThat(harness.simulator.jobsForOperation("op-limited")).isEmpty();
  }

  @Test
  void an_operation_in_review_ends_abandoned_keeping_its_review_case() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
    harness.client.start(request("op-review"));
    // Cancelled once the review waits for an operator, its evidence gathered. Cancelled while the
    // evidence activity is running, a completion that lands during the cancelling workflow task
    // is fine on Temporal's server (it records the cancel of a just-finished activity) but makes
    // the Java test server refuse the whole task (ACTIVITY_UNKNOWN) and drop the update's answer.
    await().until(() -> harness.client.describe("op-review").awaitsOperator());

    harness.client.cancel("op-review", new CancelRequest("no longer needed", "shop"));
    OperationResult result = awaitResult("op-review");

    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    harness.replayAndRecord("op-review", "cancel-in-review");
    OperationRow row = harness.row("op-review");
    assertThat(row.reviewReason()).contains("post_outcome_unknown");
    assertThat(row.dispatchOutcome()).contains("unknown");
    assertThat(row.failureReason()).contains("cancelled by shop: no longer needed");
    assertThat(harness.postsFor("op-review")).isEqualTo(1);
  }

  @Test
  void an_observed_render_ends_abandoned_with_its_remote_job_recorded() throws Exception {
    slowRenders();
    harness.client.start(request("op-observing"));
    OperationRow observing = harness.awaitPhase("op-observing", Phase.OBSERVING);

    harness.client.cancel("op-observing", new CancelRequest("order cancelled", "shop"));
    OperationResult result = awaitResult("op-observing");

    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(result.remoteJobId()).isEqualTo(observing.remoteJobId().orElseThrow());
    harness.replayAndRecord("op-observing", "cancel-observing");
    OperationRow row = harness.row("op-observing");
    assertThat(row.remoteJobId()).isEqualTo(observing.remoteJobId());
    assertThat(row.deliveryManifestJson()).isEmpty();
    assertThat(harness.postsFor("op-observing")).isEqualTo(1);
  }

  @Test
  void an_observed_render_is_still_delivered_when_the_request_asks_for_it() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(3000));
    harness.client.start(request("op-keep"));
    harness.awaitPhase("op-keep", Phase.OBSERVING);

    harness.client.cancel("op-keep", new CancelRequest("order cancelled", "shop", true));
    OperationResult result = awaitResult("op-keep");

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.detail()).contains("cancelled by shop: order cancelled");
    harness.replayAndRecord("op-keep", "cancel-observing-delivered");
    assertThat(harness.row("op-keep").deliveryManifestJson()).isPresent();
    assertThat(harness.ledger.history("op-keep"))
        .extracting(TransitionRow::event)
        .contains("delivered", "cancel_requested");
    assertThat(harness.postsFor("op-keep")).isEqualTo(1);
  }

  @Test
  void a_temporal_cancel_request_is_handled_the_same_way() throws Exception {
    slowRenders();
    harness.client.start(request("op-ui"));
    OperationRow observing = harness.awaitPhase("op-ui", Phase.OBSERVING);

    // What the Web UI's "Request Cancellation" and `temporal workflow cancel` send.
    harness
        .temporal
        .getWorkflowClient()
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-ui"))
        .cancel();
    // The workflow closes as the request asked (cancelled), after the ledger recorded it.
    assertThatThrownBy(() -> awaitResult("op-ui"))
        .isInstanceOf(WorkflowFailedException.class)
        .hasMessageContaining("cancelled");

    harness.replayAndRecord("op-ui", "temporal-cancel-observing");
    OperationRow row = harness.row("op-ui");
    assertThat(row.phase()).isEqualTo(Phase.ABANDONED);
    assertThat(row.failureReason()).hasValueSatisfying(r -> assertThat(r).contains("temporal"));
    assertThat(row.remoteJobId()).isEqualTo(observing.remoteJobId());
  }

  @Test
  void cancelling_an_unknown_or_ended_operation_is_refused_and_changes_nothing() throws Exception {
    assertThatThrownBy(
            () -> harness.client.cancel("op-nobody", new CancelRequest("why not", "shop")))
        .isInstanceOf(OperationNotFoundException.class);

    harness.client.start(request("op-done"));
    assertThat(awaitResult("op-done").phase()).isEqualTo(Phase.DELIVERED);
    OperationRow before = harness.row("op-done");
    assertThatThrownBy(() -> harness.client.cancel("op-done", "too late"))
        .isInstanceOf(OperationEndedException.class)
        .hasMessageContaining("has ended");
    assertThatThrownBy(() -> harness.client.cancel("op-done", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reason");
    assertThat(harness.row("op-done")).isEqualTo(before);
  }
}
