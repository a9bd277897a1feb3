package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.db.Sql;
import com.genace.activities.ledger.SpendReport.Grouping;
import com.genace.activities.ledger.SpendReport.Line;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import com.genace.client.model.ReviewDecision;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The credits an acceptance commits (V18) and what {@code ops spend} reads of them, on a real
 * PostgreSQL: the estimate of the row's model, a found job counted as accepted, a POST of unknown
 * outcome counted apart as possibly spent, and the window.
 */
class SpendReportTest {

  static final CreditEstimate COSTS =
      new CreditEstimate(Map.of("image-v1", 2L, "video-v1", 40L), 3);

  @RegisterExtension final LedgerFixtures fresh = LedgerFixtures.fresh();

  private final OperationsLedger ledger =
      new OperationsLedger(
          Sql.of(TestDatabase.dataSource()),
          OperationsLedger.DEFAULT_LEASE_DURATION,
          LedgerStats.NONE,
          COSTS);
  private final LedgerFixtures fixtures = LedgerFixtures.over(ledger, TestDatabase.dataSource());

  @BeforeEach
  void operations() {
    accepted("img-1", "image-v1", "shop");
    accepted("img-2", "image-v1", "shop");
    accepted("vid-1", "video-v1", "studio");
    accepted("odd-1", "unlisted-v9", "studio");
  }

  private void accepted(String id, String model, String account) {
    assertThat(ledger.create(new NewOperation(id, model, "{\"prompt\":\"a fox\"}", account)))
        .isTrue();
    Lease lease = fixtures.claim(id, LedgerFixtures.WORKER, NextAction.DISPATCH);
    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordAccepted(lease, "gen_" + id)).isEqualTo(WriteResult.APPLIED);
  }

  private Lease submitting(String id, String model, String account) {
    assertThat(ledger.create(new NewOperation(id, model, "{\"prompt\":\"a fox\"}", account)))
        .isTrue();
    Lease lease = fixtures.claim(id, LedgerFixtures.WORKER, NextAction.DISPATCH);
    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    return lease;
  }

  @Test
  void an_acceptance_commits_the_estimate_of_its_model() {
    assertThat(ledger.get("img-1").credits()).contains(2L);
    assertThat(ledger.get("vid-1").credits()).contains(40L);
    assertThat(ledger.get("odd-1").credits()).as("a model not listed").contains(3L);
    assertThat(ledger.get("img-1").creditsCommittedAt()).isPresent();
  }

  @Test
  void a_second_acceptance_adds_its_credits_and_keeps_the_first_job_in_the_history() {
    // img-1's job vanished on Genace; an operator said not_submitted; the dispatch again is
    // accepted as another job. Both renders were paid.
    Lease observing = fixtures.claim("img-1", LedgerFixtures.WORKER, NextAction.OBSERVE);
    assertThat(ledger.openReview(observing, "remote_job_not_found", "404"))
        .isEqualTo(WriteResult.APPLIED);
    Lease review = fixtures.claim("img-1", LedgerFixtures.WORKER, NextAction.RECONCILE);
    assertThat(
            ledger.resolveReview(
                review, ReviewDecision.NOT_SUBMITTED, Optional.empty(), "bob", "gone on Genace"))
        .isEqualTo(WriteResult.APPLIED);
    Lease again = fixtures.claim("img-1", LedgerFixtures.WORKER, NextAction.DISPATCH);
    assertThat(ledger.markSubmitting(again)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordAccepted(again, "gen_img-1-again")).isEqualTo(WriteResult.APPLIED);

    assertThat(ledger.get("img-1").remoteJobId()).contains("gen_img-1-again");
    assertThat(ledger.get("img-1").credits()).as("both renders' estimates").contains(4L);
    assertThat(ledger.recovery().knownJobIds("img-1"))
        .containsExactlyInAnyOrder("gen_img-1", "gen_img-1-again");
    assertThat(ledger.spend().committed(Duration.ofHours(24), Grouping.ACCOUNT))
        .contains(new Line("shop", 6, 2));
  }

  @Test
  void committed_credits_are_grouped_by_account_model_or_day() {
    SpendReport spend = ledger.spend();
    assertThat(spend.committed(Duration.ofHours(24), Grouping.ACCOUNT))
        .containsExactly(new Line("shop", 4, 2), new Line("studio", 43, 2));
    assertThat(spend.committed(Duration.ofHours(24), Grouping.MODEL))
        .containsExactly(
            new Line("image-v1", 4, 2), new Line("unlisted-v9", 3, 1), new Line("video-v1", 40, 1));
    assertThat(spend.committed(Duration.ofHours(24), Grouping.DAY))
        .singleElement()
        .satisfies(
            line -> {
              assertThat(line.key()).matches("\\d{4}-\\d{2}-\\d{2}");
              assertThat(line.credits()).isEqualTo(47);
              assertThat(line.operations()).isEqualTo(4);
            });
  }

  @Test
  void credits_committed_before_the_window_are_not_counted() {
    fixtures.execute(
        "UPDATE app_generation_operations SET credits_committed_at = clock_timestamp()"
            + " - interval '3 days' WHERE operation_id = ?",
        "vid-1");
    assertThat(ledger.spend().committed(Duration.ofHours(24), Grouping.ACCOUNT))
        .containsExactly(new Line("shop", 4, 2), new Line("studio", 3, 1));
    assertThat(ledger.spend().committed(Duration.ofDays(7), Grouping.ACCOUNT))
        .containsExactly(new Line("shop", 4, 2), new Line("studio", 43, 2));
  }

  @Test
  void a_post_of_unknown_outcome_is_possibly_spent_until_its_job_is_found() {
    Lease lost = submitting("vid-2", "video-v1", "studio");
    assertThat(ledger.openReview(lost, "post_outcome_unknown", "read timed out"))
        .isEqualTo(WriteResult.APPLIED);
    // A review that is not about a POST (nothing was sent) is not possibly spent.
    ledger.create(new NewOperation("img-3", "image-v1", "{\"prompt\":\"a fox\"}", "shop"));
    Lease pending = fixtures.claim("img-3", LedgerFixtures.WORKER, NextAction.DISPATCH);
    assertThat(ledger.openReview(pending, "dispatch_not_sent_repeatedly", "never sent"))
        .isEqualTo(WriteResult.APPLIED);

    SpendReport spend = ledger.spend();
    assertThat(spend.possiblySpent(Duration.ofHours(24), Grouping.ACCOUNT, COSTS))
        .containsExactly(new Line("studio", 40, 1));
    assertThat(spend.committed(Duration.ofHours(24), Grouping.ACCOUNT))
        .as("not committed while unknown")
        .containsExactly(new Line("shop", 4, 2), new Line("studio", 43, 2));

    Lease reconcile = fixtures.claim("vid-2", "operator-cli", NextAction.RECONCILE);
    assertThat(
            ledger.resolveReview(
                reconcile,
                ReviewDecision.FOUND_REMOTE_JOB,
                Optional.of("gen_vid-2"),
                "alice",
                "found it on the dashboard"))
        .isEqualTo(WriteResult.APPLIED);

    assertThat(spend.possiblySpent(Duration.ofHours(24), Grouping.ACCOUNT, COSTS)).isEmpty();
    assertThat(spend.committed(Duration.ofHours(24), Grouping.ACCOUNT))
        .containsExactly(new Line("shop", 4, 2), new Line("studio", 83, 3));
    assertThat(ledger.get("vid-2").credits()).contains(40L);
  }

  @Test
  void a_post_found_not_submitted_is_neither_spent_nor_possibly_spent() {
    Lease lost = submitting("vid-2", "video-v1", "studio");
    ledger.openReview(lost, "post_outcome_unknown", "read timed out");
    Lease reconcile = fixtures.claim("vid-2", "operator-cli", NextAction.RECONCILE);
    ledger.resolveReview(
        reconcile, ReviewDecision.NOT_SUBMITTED, Optional.empty(), "alice", "no job exists");

    assertThat(ledger.spend().possiblySpent(Duration.ofHours(24), Grouping.MODEL, COSTS)).isEmpty();
    assertThat(ledger.get("vid-2").credits()).isEmpty();
    assertThat(ledger.get("vid-2").creditsCommittedAt()).isEmpty();
  }
}
