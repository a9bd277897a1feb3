package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A POST whose outcome is unknown goes to review and waits for an operator, never a retry. */
@ExtendWith(DatabaseExtension.class)
class UncertaintyReviewTest {

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

  private OperationView awaitReview(String operationId) {
    harness.awaitPhase(operationId, Phase.IN_REVIEW);
    await().until(() -> harness.client.describe(operationId).awaitsOperator());
    return harness.client.describe(operationId);
  }

  @Test
  void a_lost_post_response_opens_a_review_resolved_by_the_job_the_operator_found()
      throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
    harness.client.start(request("op-lost"));

    OperationView view = awaitReview("op-lost");
    assertThat(view.review().reason()).isEqualTo(ReviewReason.POST_OUTCOME_UNKNOWN);
    OperationRow row = harness.row("op-lost");
    assertThat(row.reviewReason()).contains("post_outcome_unknown");
    assertThat(row.dispatchOutcome()).contains("unknown");
    assertThat(row.credits()).as("possibly spent, nothing committed yet").isEmpty();

    // The operator looks the job up on Genace's side and tells the workflow.
    String found = harness.simulator.jobsForOperation("op-lost").get(0);
    String ack =
        harness.client.resolve(
            "op-lost",
            new ReviewResolution("found_remote_job", found, "seen in dashboard", "alice"));
    OperationResult result = harness.client.awaitResult("op-lost", Duration.ofMinutes(1));

    assertThat(ack).isEqualTo("accepted found_remote_job");
    harness.replayAndRecord("op-lost", "review-found-remote-job");
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.remoteJobId()).isEqualTo(found);
    assertThat(harness.postsFor("op-lost")).isEqualTo(1);
    assertThat(harness.row("op-lost").reviewResolvedBy()).contains("alice");
    assertThat(harness.row("op-lost").credits()).as("the found job commits them").contains(1L);
  }

  @Test
  void a_5xx_review_resolved_as_not_submitted_dispatches_again_under_a_new_revision()
      throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1.0));
    harness.client.start(request("op-5xx"));
    awaitReview("op-5xx");
    long revisionInReview = harness.row("op-5xx").revision();
    assertThat(harness.simulator.jobsForOperation("op-5xx")).isEmpty();
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0));

    harness.client.signalResolution(
        "op-5xx", new ReviewResolution("not_submitted", null, "no job on Genace", "bob"));
    OperationResult result = harness.client.awaitResult("op-5xx", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    harness.replayAndRecord("op-5xx", "review-not-submitted");
    assertThat(harness.postsFor("op-5xx")).isEqualTo(2);
    assertThat(harness.simulator.jobsForOperation("op-5xx")).hasSize(1);
    assertThat(harness.row("op-5xx").revision()).isGreaterThan(revisionInReview);
    assertThat(harness.row("op-5xx").dispatchAttempts()).isEqualTo(2);
  }

  @Test
  void a_review_resolved_as_abandon_ends_the_operation_abandoned() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
    harness.client.start(request("op-abandon"));
    awaitReview("op-abandon");

    harness.client.signalResolution(
        "op-abandon", new ReviewResolution("abandon", null, "customer cancelled", "carol"));
    OperationResult result = harness.client.awaitResult("op-abandon", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
    harness.replayAndRecord("op-abandon", "review-abandon");
    assertThat(harness.row("op-abandon").phase()).isEqualTo(Phase.ABANDONED);
    assertThat(harness.row("op-abandon").failureReason()).contains("customer cancelled");
    assertThat(harness.postsFor("op-abandon")).isEqualTo(1);
  }

  @Test
  void invalid_resolutions_change_nothing_and_are_visible_through_the_query() {
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
    harness.client.start(request("op-invalid"));
    awaitReview("op-invalid");
    OperationRow before = harness.row("op-invalid");

    harness.client.signalResolution(
        "op-invalid", new ReviewResolution("maybe", null, "unsure", "dave"));
    harness.client.signalResolution(
        "op-invalid", new ReviewResolution("found_remote_job", " ", "forgot the id", "dave"));
    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-invalid", new ReviewResolution("abandon", null, "", "dave")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("a reason is required");

    await().until(() -> harness.client.describe("op-invalid").rejectedResolutions().size() == 2);
    OperationView view = harness.client.describe("op-invalid");
    assertThat(view.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(view.rejectedResolutions())
        .anySatisfy(problem -> assertThat(problem).contains("unknown decision 'maybe'"))
        .anySatisfy(problem -> assertThat(problem).contains("needs the remote job id"));
    assertThat(harness.row("op-invalid")).isEqualTo(before);
    assertThat(harness.postsFor("op-invalid")).isEqualTo(1);
  }

  @Test
  void a_resolution_for_an_operation_that_is_not_in_review_is_refused() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(3000));
    harness.client.start(request("op-busy"));
    harness.awaitPhase("op-busy", Phase.OBSERVING);

    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-busy", new ReviewResolution("abandon", null, "oops", "erin")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("is not in review");
    harness.client.signalResolution(
        "op-busy", new ReviewResolution("abandon", null, "oops", "erin"));

    OperationResult result = harness.client.awaitResult("op-busy", Duration.ofMinutes(1));
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(harness.client.describe("op-busy").rejectedResolutions())
        .singleElement()
        .satisfies(problem -> assertThat(problem).contains("is not in review"));
  }
}
