package com.genace.activities.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.recovery.HistoryEvidence;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.review.ReviewOpened;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Opening a review after a dispatch whose outcome is unknown: what the ledger shows decides whether
 * a POST may have left (a review) or provably none did (dispatched again).
 */
class ReviewActivitiesImplTest {

  private static final String OP = "op-1";

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh(Duration.ofSeconds(30));

  private final OperationsLedger ledger = fixtures.ledger();
  private ReviewActivitiesImpl reviews;

  @BeforeEach
  void a_pending_operation() {
    reviews =
        new ReviewActivitiesImpl(ledger, HistoryEvidence::none, "worker-a", ActivityStats.NONE);
    ledger.create(new NewOperation(OP, "image-v1", "{\"prompt\":\"x\"}", "acct"));
  }

  private Lease claim(String owner) {
    ClaimResult claim = ledger.claim(OP, owner, NextAction.DISPATCH);
    assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
    return ((ClaimResult.Acquired) claim).lease();
  }

  @Test
  void an_unknown_outcome_of_a_dispatch_that_never_marked_submitting_opens_no_review() {
    long before = ledger.get(OP).revision();

    ReviewOpened opened =
        reviews.openReview(OP, ReviewReason.POST_OUTCOME_UNKNOWN, "dispatch did not report back");

    assertThat(opened).isEqualTo(ReviewOpened.provablyNothingSent());
    OperationRow row = ledger.get(OP);
    assertThat(row.phase()).isEqualTo(Phase.PENDING);
    assertThat(row.nextAction()).isEqualTo(NextAction.DISPATCH);
    assertThat(row.reviewReason()).isEmpty();
    assertThat(row.leaseOwner()).as("the check's own lease is released").isEmpty();
    assertThat(row.revision()).isGreaterThan(before);
    assertThat(ledger.history(OP)).noneMatch(t -> t.event().equals("review_opened"));
  }

  @Test
  void a_stale_dispatch_claim_of_the_same_worker_is_fenced_out_by_the_check() {
    // The timed-out attempt claimed (a limited allowance claims before marking submitting) and
    // then stalled; the check takes over its lease under a new revision.
    Lease stale = claim("worker-a");

    assertThat(reviews.openReview(OP, ReviewReason.POST_OUTCOME_UNKNOWN, "timed out").nothingSent())
        .isTrue();

    assertThat(ledger.markSubmitting(stale)).isEqualTo(WriteResult.DENIED);
    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.PENDING);
  }

  @Test
  void a_live_dispatch_claim_of_another_worker_is_waited_out() {
    claim("worker-b");

    assertThatThrownBy(() -> reviews.openReview(OP, ReviewReason.POST_OUTCOME_UNKNOWN, "timed out"))
        .isInstanceOf(ApplicationFailure.class)
        .satisfies(
            e -> assertThat(((ApplicationFailure) e).getType()).isEqualTo("DispatchLeaseHeld"));
    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.PENDING);
  }

  @Test
  void an_unknown_outcome_after_submitting_opens_the_review(DataSource dataSource)
      throws InterruptedException {
    // A dispatch marked it submitting (its POST may have left) and died: its lease has expired.
    OperationsLedger briefLeases = new OperationsLedger(dataSource, Duration.ofMillis(1));
    assertThat(briefLeases.claimToSubmit(OP, "worker-b")).isInstanceOf(ClaimResult.Acquired.class);
    Thread.sleep(20);

    ReviewOpened opened = reviews.openReview(OP, ReviewReason.POST_OUTCOME_UNKNOWN, "timed out");

    assertThat(opened.inReview()).isTrue();
    assertThat(opened.nothingSent()).isFalse();
    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.IN_REVIEW);
  }

  @Test
  void other_reasons_open_the_review_of_a_pending_operation() {
    ReviewOpened opened =
        reviews.openReview(OP, ReviewReason.DISPATCH_NOT_SENT_REPEATEDLY, "five times not sent");

    assertThat(opened).isEqualTo(ReviewOpened.opened(ReviewReason.DISPATCH_NOT_SENT_REPEATEDLY));
    OperationRow row = ledger.get(OP);
    assertThat(row.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(row.reviewReason()).contains("dispatch_not_sent_repeatedly");
  }
}
