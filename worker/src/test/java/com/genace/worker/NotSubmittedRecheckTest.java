package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.review.EvidenceJob;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code not_submitted} is checked against evidence gathered again when it is applied, not only
 * against what was gathered when the review opened: a job the search lists late, and a job that a
 * dispatcher whose lease had run out recorded as a denied write, both refuse it. The operation's
 * own exchanges' job ids are the activity's third source ({@code EvidenceGatheredAgainTest}).
 */
@ExtendWith(DatabaseExtension.class)
class NotSubmittedRecheckTest {

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

  private static ReviewResolution notSubmitted() {
    return new ReviewResolution("not_submitted", null, "nothing on the dashboard", "bob");
  }

  @Test
  void a_job_the_search_lists_only_after_the_review_opened_refuses_not_submitted()
      throws Exception {
    // The search lags creation by longer than the review's first search lasts (one second).
    harness.simulator.setFaults(
        harness.simulator.faults().withLosePostResponseNext(1).withSearchLagMs(4000));
    harness.client.start(request("op-lagging"));
    OperationView opened = awaitReview("op-lagging");
    assertThat(opened.review().evidence().candidates()).isEmpty();
    String job = harness.simulator.jobsForOperation("op-lagging").get(0);
    // Past the lag, as an operator answering minutes later would be.
    await().pollDelay(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> true);

    assertThatThrownBy(() -> harness.client.resolve("op-lagging", notSubmitted()))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("not_submitted refused")
        .hasMessageContaining(job);

    OperationView after = harness.client.describe("op-lagging");
    assertThat(after.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(after.review().evidence().candidates())
        .extracting(EvidenceJob::id, EvidenceJob::seenIn)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(job, EvidenceJob.SEARCH));
    assertThat(harness.ledger.reviewEvidence("op-lagging").orElseThrow().summary()).contains(job);
    harness.client.resolve(
        "op-lagging", new ReviewResolution("found_remote_job", job, "listed late", "bob"));
    OperationResult result = harness.client.awaitResult("op-lagging", Duration.ofMinutes(1));
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(harness.postsFor("op-lagging")).isEqualTo(1);
    harness.replayAndRecord("op-lagging", "review-not-submitted-refused-by-late-search");
  }

  @Test
  void a_denied_write_carrying_a_job_id_refuses_not_submitted() throws Exception {
    // Without the search, the review's first evidence shows nothing.
    harness.simulator.setFaults(
        harness.simulator.faults().withLosePostResponseNext(1).withSearchEnabled(false));
    harness.client.start(request("op-thawed"));
    OperationView opened = awaitReview("op-thawed");
    assertThat(opened.review().evidence().search()).isEqualTo(ReviewEvidence.NOT_OFFERED);
    assertThat(opened.review().evidence().candidates()).isEmpty();
    // A dispatcher that froze after its claim thaws, POSTs and tries to record the job Genace
    // accepted: its lease ran out long ago, so the write is denied and only its history row stays.
    String job = harness.simulator.jobsForOperation("op-thawed").get(0);
    long revision = harness.row("op-thawed").revision();
    Lease expired =
        new Lease("op-thawed", "thawed-worker", revision - 1, NextAction.DISPATCH, Instant.EPOCH);
    assertThat(harness.ledger.recordAccepted(expired, job)).isEqualTo(WriteResult.DENIED);

    assertThatThrownBy(() -> harness.client.resolve("op-thawed", notSubmitted()))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("not_submitted refused")
        .hasMessageContaining(job);

    OperationView after = harness.client.describe("op-thawed");
    assertThat(after.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(after.review().evidence().candidates())
        .extracting(EvidenceJob::id, EvidenceJob::seenIn)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(job, EvidenceJob.LEDGER));
    assertThat(harness.ledger.reviewEvidence("op-thawed").orElseThrow().summary())
        .contains(job, "from a denied write in the ledger");
    assertThat(harness.postsFor("op-thawed")).isEqualTo(1);
    assertThat(harness.row("op-thawed").phase()).isEqualTo(Phase.IN_REVIEW);
    harness.replayAndRecord("op-thawed", "review-not-submitted-refused-by-denied-write");
  }
}
