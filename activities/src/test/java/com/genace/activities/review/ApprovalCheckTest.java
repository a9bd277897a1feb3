package com.genace.activities.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.CreditEstimate;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import com.genace.client.review.Approval;
import com.genace.client.review.ApprovalKeys;
import com.genace.client.review.ReviewResolution;
import java.security.KeyPair;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Who may spend again, on a real ledger: a {@code not_submitted} is accepted only with a valid
 * approval by a registered approver (once one is registered), and each way an approval can be wrong
 * is refused by name and counted by reason.
 */
class ApprovalCheckTest {

  private static final String OP = "op-approve";

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh(Duration.ofSeconds(30));

  private final OperationsLedger ledger = fixtures.ledger();
  private final KeyPair alice = ApprovalKeys.generate();
  private final KeyPair bob = ApprovalKeys.generate();
  private final KeyPair mallory = ApprovalKeys.generate();
  private final Instant now = Instant.parse("2026-12-07T10:00:00Z");
  private final List<String> refusals = new ArrayList<>();
  private final ActivityStats stats =
      new ActivityStats() {
        @Override
        public void approvalRefused(String reason) {
          refusals.add(reason);
        }
      };
  private final ApprovalCheck check =
      new ApprovalCheck(ledger, Clock.fixed(now, ZoneOffset.UTC), OptionalLong.empty(), stats);
  private String evidence;

  @BeforeEach
  void an_operation_in_review_with_its_evidence() {
    inReview(OP);
    evidence = ledger.approvers().latestEvidenceDigest(OP).orElseThrow();
  }

  private void inReview(String id) {
    assertThat(ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"x\"}"))).isTrue();
    Lease lease =
        ((ClaimResult.Acquired) ledger.claim(id, "worker-a", NextAction.DISPATCH)).lease();
    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.openReview(lease, "post_outcome_unknown", "connection reset"))
        .isEqualTo(WriteResult.APPLIED);
    Instant opened = ledger.get(id).reviewOpenedAt().orElseThrow();
    assertThat(
            ledger.recordReviewEvidence(
                id, opened, "{\"jobs\":[],\"search\":\"none found\"}", "no job found"))
        .isTrue();
  }

  private void register(String name, KeyPair pair) {
    assertThat(ledger.approvers().add(name, ApprovalKeys.stored(pair.getPublic()), "admin"))
        .isTrue();
  }

  private Approval approval(KeyPair signer, String approver, String operation, Instant expiresAt) {
    return Approval.signed(
        signer.getPrivate(), approver, operation, "not_submitted", evidence, expiresAt);
  }

  private static ReviewResolution notSubmitted(Approval... approvals) {
    return new ReviewResolution(
        "not_submitted", null, "no job on Genace", "whoever", List.of(approvals));
  }

  @Test
  void with_no_approver_registered_spending_is_unguarded() {
    ApprovalCheck.Checked checked = check.check(OP, notSubmitted());

    assertThat(checked.refusal()).isEmpty();
    assertThat(checked.approvers()).isEmpty();
  }

  @Test
  void a_valid_approval_is_accepted_once_and_names_the_key_that_signed() {
    register("alice", alice);
    Approval valid = approval(alice, "alice", OP, now.plus(Duration.ofHours(1)));

    ApprovalCheck.Checked first = check.check(OP, notSubmitted(valid));
    ApprovalCheck.Checked retried = check.check(OP, notSubmitted(valid));

    assertThat(first.refusal()).isEmpty();
    assertThat(first.approvers()).containsExactly("alice");
    assertThat(retried.refusal()).as("the same review's retried activity").isEmpty();
    assertThat(refusals).isEmpty();
  }

  @Test
  void an_approval_used_for_one_review_is_refused_for_the_next_review_of_the_operation()
      throws Exception {
    register("alice", alice);
    Approval valid = approval(alice, "alice", OP, now.plus(Duration.ofHours(1)));
    assertThat(check.check(OP, notSubmitted(valid)).refusal()).isEmpty();
    // A second review of the operation (its next POST's outcome unknown too), with evidence that
    // reads the same: the first review's approval must not answer it.
    try (Connection connection = TestDatabase.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "UPDATE app_generation_operations SET review_opened_at = clock_timestamp()"
              + " WHERE operation_id = '"
              + OP
              + "'");
    }
    Instant reopened = ledger.get(OP).reviewOpenedAt().orElseThrow();
    assertThat(
            ledger.recordReviewEvidence(
                OP, reopened, "{\"jobs\":[],\"search\":\"none found\"}", "no job found"))
        .isTrue();

    ApprovalCheck.Checked replayed = check.check(OP, notSubmitted(valid));

    assertThat(replayed.refusal().orElseThrow())
        .contains("the approval of alice was used for another review already");
    assertThat(refusals).containsExactly("replayed");
  }

  @Test
  void each_wrong_approval_is_refused_by_name_and_counted_by_reason() {
    register("alice", alice);
    Instant soon = now.plus(Duration.ofHours(1));
    Map<String, ReviewResolution> wrong =
        new java.util.LinkedHashMap<>(
            Map.of(
                "unsigned", notSubmitted(),
                "unknown_key", notSubmitted(approval(mallory, "mallory", OP, soon)),
                "other_operation", notSubmitted(approval(alice, "alice", "op-elsewhere", soon)),
                "expired", notSubmitted(approval(alice, "alice", OP, now.minusSeconds(1))),
                "too_long",
                    notSubmitted(approval(alice, "alice", OP, now.plus(Duration.ofDays(2)))),
                "bad_signature", notSubmitted(approval(mallory, "alice", OP, soon))));
    wrong.put(
        "evidence_mismatch",
        notSubmitted(
            Approval.signed(
                alice.getPrivate(), "alice", OP, "not_submitted", "0".repeat(64), soon)));

    for (Map.Entry<String, ReviewResolution> each : wrong.entrySet()) {
      refusals.clear();
      ApprovalCheck.Checked checked = check.check(OP, each.getValue());

      assertThat(checked.refusal()).as(each.getKey()).isPresent();
      assertThat(refusals).as(each.getKey()).containsExactly(each.getKey());
    }
    assertThat(check.check(OP, notSubmitted()).refusal().orElseThrow())
        .contains("needs an approval signed by a registered approver");
    assertThat(
            check
                .check(OP, notSubmitted(approval(alice, "alice", "op-elsewhere", soon)))
                .refusal()
                .orElseThrow())
        .contains("the approval of alice was signed for operation op-elsewhere");
    assertThat(
            check
                .check(OP, notSubmitted(approval(mallory, "alice", OP, soon)))
                .refusal()
                .orElseThrow())
        .contains("does not verify under alice's key");
  }

  @Test
  void a_tampered_field_breaks_the_signature() {
    register("alice", alice);
    Approval signed = approval(alice, "alice", OP, now.plus(Duration.ofHours(1)));
    Approval laterExpiry =
        new Approval(
            signed.approver(),
            signed.operationId(),
            signed.decision(),
            signed.evidenceSha256(),
            now.plus(Duration.ofHours(2)).toString(),
            signed.signature());

    assertThat(check.check(OP, notSubmitted(laterExpiry)).refusal()).isPresent();
    assertThat(refusals).containsExactly("bad_signature");
  }

  @Test
  void above_the_two_person_threshold_two_distinct_approvers_must_sign() {
    register("alice", alice);
    register("bob", bob);
    CreditEstimate estimate = ledger.creditEstimate();
    long cost = estimate.costOf("image-v1");
    ApprovalCheck twoPerson =
        new ApprovalCheck(
            ledger, Clock.fixed(now, ZoneOffset.UTC), OptionalLong.of(cost - 1), stats);
    Instant soon = now.plus(Duration.ofHours(1));
    Approval byAlice = approval(alice, "alice", OP, soon);

    ApprovalCheck.Checked alone = twoPerson.check(OP, notSubmitted(byAlice));
    ApprovalCheck.Checked twiceAlice = twoPerson.check(OP, notSubmitted(byAlice, byAlice));
    ApprovalCheck.Checked both =
        twoPerson.check(OP, notSubmitted(byAlice, approval(bob, "bob", OP, soon)));

    assertThat(alone.refusal().orElseThrow()).contains("needs 2 distinct registered approver(s)");
    assertThat(twiceAlice.refusal()).isPresent();
    assertThat(both.refusal()).isEmpty();
    assertThat(both.approvers()).containsExactly("alice", "bob");
  }
}
