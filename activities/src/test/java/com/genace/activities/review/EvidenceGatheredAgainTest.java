package com.genace.activities.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.ReviewEvidenceRow;
import com.genace.activities.recovery.HistoryEvidence;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.EvidenceJob;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The evidence gathered again before {@code not_submitted} is applied counts every job id this
 * operation's exchanges saw, whether or not Genace can read it now, and says what it could not look
 * at; evidence is kept only on the review it was gathered for, and not when it could not look and
 * found nothing.
 */
class EvidenceGatheredAgainTest {

  private static final String OP = "op-1";

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh(Duration.ofSeconds(30));

  private final OperationsLedger ledger = fixtures.ledger();
  private GenaceSimulator simulator;
  private ReviewActivitiesImpl reviews;
  private EvidenceActivitiesImpl evidence;

  @BeforeEach
  void an_operation_in_review() {
    // Without the search: the only sources are the ids seen, and the ledger.
    simulator = GenaceSimulator.builder().faults(Faults.DEFAULT.withSearchEnabled(false)).start();
    GenaceClient genace = new HttpGenaceClient(GenaceClientConfig.of(simulator.baseUrl(), "key"));
    reviews =
        new ReviewActivitiesImpl(ledger, HistoryEvidence::none, "worker-a", ActivityStats.NONE);
    evidence =
        new EvidenceActivitiesImpl(
            ledger,
            genace,
            new ReviewSettings(false, Duration.ofSeconds(1), Duration.ofMillis(100)),
            ActivityStats.NONE);
    ledger.create(new NewOperation(OP, "image-v1", "{\"prompt\":\"x\"}"));
    reviews.openReview(OP, ReviewReason.DISPATCH_NOT_SENT_REPEATEDLY, "five attempts sent nothing");
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  @Test
  void a_job_id_an_exchange_saw_counts_even_when_genace_does_not_know_it() {
    ReviewEvidence gathered = evidence.gatherEvidenceAgain(OP, List.of("gen_seen_in_exchange"));

    assertThat(gathered.candidates())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.id()).isEqualTo("gen_seen_in_exchange");
              assertThat(job.status()).isEqualTo(EvidenceJob.UNREAD);
              assertThat(job.seenIn()).isEqualTo(EvidenceJob.EXCHANGE);
            });
    assertThat(gathered.notes())
        .containsExactly("job gen_seen_in_exchange seen in the exchange is unknown to Genace");
    assertThat(gathered.selfSettleJobId()).isNull();
    assertThat(ledger.reviewEvidence(OP).map(ReviewEvidenceRow::summary).orElseThrow())
        .contains("gen_seen_in_exchange");
  }

  @Test
  void nothing_seen_anywhere_gives_evidence_without_candidates() {
    ReviewEvidence gathered = evidence.gatherEvidenceAgain(OP, List.of());

    assertThat(gathered.candidates()).isEmpty();
    assertThat(gathered.search()).isEqualTo(ReviewEvidence.NOT_OFFERED);
  }

  @Test
  void a_job_id_genace_does_not_answer_for_is_listed_as_unread_so_the_evidence_could_not_check() {
    simulator.setFaults(simulator.faults().withRate5xx(1.0));

    ReviewEvidence gathered = evidence.gatherEvidenceAgain(OP, List.of("gen_seen_in_exchange"));

    assertThat(gathered.candidates()).extracting(EvidenceJob::id).contains("gen_seen_in_exchange");
    assertThat(gathered.unreadJobs())
        .singleElement()
        .asString()
        .startsWith("gen_seen_in_exchange: ")
        .contains("503");
    assertThat(gathered.unchecked().orElseThrow()).contains("job gen_seen_in_exchange: ");
  }

  @Test
  void a_search_that_does_not_answer_leaves_the_kept_evidence_as_it_was() {
    Instant opened = ledger.get(OP).reviewOpenedAt().orElseThrow();
    assertThat(ledger.recordReviewEvidence(OP, opened, "{\"review\":1}", "gathered first"))
        .isTrue();
    simulator.setFaults(simulator.faults().withSearchEnabled(true).withRate5xx(1.0));
    // One search, not repeated (a repeated one heartbeats, which needs an activity's context).
    EvidenceActivitiesImpl searchingOnce =
        new EvidenceActivitiesImpl(
            ledger,
            new HttpGenaceClient(GenaceClientConfig.of(simulator.baseUrl(), "key")),
            new ReviewSettings(false, Duration.ZERO, Duration.ofMillis(100)),
            ActivityStats.NONE);

    ReviewEvidence gathered = searchingOnce.gatherEvidenceAgain(OP, List.of());

    assertThat(gathered.candidates()).isEmpty();
    assertThat(gathered.search()).startsWith("failed: ").contains("503");
    assertThat(gathered.unchecked().orElseThrow()).startsWith("the search failed: ");
    assertThat(ledger.reviewEvidence(OP).map(ReviewEvidenceRow::summary))
        .contains("gathered first");
  }

  @Test
  void evidence_gathered_for_an_earlier_review_never_replaces_a_later_ones() {
    Instant first = ledger.get(OP).reviewOpenedAt().orElseThrow();
    assertThat(ledger.recordReviewEvidence(OP, first, "{\"review\":1}", "first review")).isTrue();
    reviews.recordResolution(
        OP, new ReviewResolution("not_submitted", null, "nothing on Genace", "bob"));
    reviews.openReview(OP, ReviewReason.DISPATCH_NOT_SENT_REPEATEDLY, "again");
    Instant second = ledger.get(OP).reviewOpenedAt().orElseThrow();
    assertThat(ledger.recordReviewEvidence(OP, second, "{\"review\":2}", "second review")).isTrue();

    // A late attempt gathered for the first review.
    boolean kept = ledger.recordReviewEvidence(OP, first, "{\"review\":1}", "first review, late");

    assertThat(second).isAfter(first);
    assertThat(kept).isFalse();
    assertThat(ledger.reviewEvidence(OP).map(ReviewEvidenceRow::summary)).contains("second review");
  }
}
