package com.genace.activities.review;

import com.genace.activities.ledger.ApproverRecords;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.stats.ActivityStats;
import com.genace.client.model.ReviewDecision;
import com.genace.client.review.Approval;
import com.genace.client.review.ApprovalKeys;
import com.genace.client.review.ReviewResolution;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Who may spend again: a {@code not_submitted} decision (it sends a second paid POST) is accepted
 * only with approvals signed by registered approvers ({@code app_approvers}), once at least one is
 * registered; with none, spending is unguarded, as the worker's start-up log and {@code /status}
 * say. Each approval must name this operation and decision, answer an evidence gathering of the
 * review in hand (its digest), hold for at most {@link #MAX_VALIDITY} and not have expired, verify
 * under its approver's registered Ed25519 key, and answer no other review before (a replay). Above
 * the two-person threshold of estimated credits, two distinct approvers must sign.
 */
public final class ApprovalCheck {

  /**
   * The longest an approval may hold: long enough to pass a decision on, short enough to expire.
   */
  public static final Duration MAX_VALIDITY = Duration.ofHours(24);

  /** What the check found: a refusal, or the approvers whose signatures carried the decision. */
  public record Checked(Optional<String> refusal, List<String> approvers) {

    static Checked refused(String why) {
      return new Checked(Optional.of(why), List.of());
    }
  }

  /** Why one approval does not count: the metric's reason and the operator's words. */
  private record Problem(String reason, String words) {}

  private final OperationsLedger ledger;
  private final ApproverRecords approvers;
  private final Clock clock;
  private final OptionalLong twoPersonCredits;
  private final ActivityStats stats;

  /**
   * @param twoPersonCredits above this many estimated credits two distinct approvers must sign
   *     ({@code GENACE_TWO_PERSON_CREDITS}); empty for one
   */
  public ApprovalCheck(
      OperationsLedger ledger, Clock clock, OptionalLong twoPersonCredits, ActivityStats stats) {
    this.ledger = ledger;
    this.approvers = ledger.approvers();
    this.clock = clock;
    this.twoPersonCredits = twoPersonCredits;
    this.stats = stats;
  }

  /** Checks {@code resolution} of {@code operationId}'s open review. */
  public Checked check(String operationId, ReviewResolution resolution) {
    if (resolution.parsedDecision().orElse(null) != ReviewDecision.NOT_SUBMITTED
        || !approvers.anyRegistered()) {
      return new Checked(Optional.empty(), List.of());
    }
    OperationRow row = ledger.get(operationId);
    Instant reviewOpenedAt = row.reviewOpenedAt().orElse(Instant.EPOCH);
    if (resolution.approvals().isEmpty()) {
      return refused(
          "unsigned",
          "not_submitted sends a second paid POST and needs an approval signed by a registered"
              + " approver (./genace ops resolve with GENACE_OPERATOR_KEY); none came with it");
    }
    int needed = needed(row);
    Set<String> digests =
        new LinkedHashSet<>(approvers.evidenceDigestsSince(operationId, reviewOpenedAt));
    Set<String> signers = new LinkedHashSet<>();
    List<Approval> valid = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    String firstReason = null;
    for (Approval approval : resolution.approvals()) {
      Optional<Problem> problem = problem(approval, operationId, digests);
      if (problem.isPresent()) {
        firstReason = firstReason == null ? problem.get().reason() : firstReason;
        problems.add(problem.get().words());
      } else if (signers.add(approval.approver())) {
        valid.add(approval);
      }
    }
    if (signers.size() < needed) {
      String reason = firstReason != null ? firstReason : "too_few_approvers";
      String why = problems.isEmpty() ? "" : ": " + String.join("; ", problems);
      return refused(
          reason,
          "not_submitted needs "
              + needed
              + " distinct registered approver(s)"
              + (needed > 1 ? " above " + twoPersonCredits.getAsLong() + " estimated credits" : "")
              + ", and "
              + signers.size()
              + " valid approval(s) came with it"
              + why);
    }
    for (Approval approval : valid) {
      if (!approvers.use(
          sha256(approval.signature()), operationId, reviewOpenedAt, approval.approver())) {
        return refused(
            "replayed",
            "the approval of "
                + approval.approver()
                + " was used for another review already: sign this one");
      }
    }
    return new Checked(Optional.empty(), List.copyOf(signers));
  }

  private int needed(OperationRow row) {
    if (twoPersonCredits.isEmpty()) {
      return 1;
    }
    long estimate = row.credits().orElseGet(() -> ledger.creditEstimate().costOf(row.model()));
    return estimate > twoPersonCredits.getAsLong() ? 2 : 1;
  }

  /** Why the approval does not count, or empty for a valid one. */
  private Optional<Problem> problem(Approval approval, String operationId, Set<String> digests) {
    String who =
        approval.approver() == null ? "an approval" : "the approval of " + approval.approver();
    Optional<ApproverRecords.Approver> approver =
        approval.approver() == null ? Optional.empty() : approvers.find(approval.approver());
    if (approver.isEmpty()) {
      return problem("unknown_key", who + " names no registered approver (ops approvers list)");
    }
    if (!operationId.equals(approval.operationId())) {
      return problem(
          "other_operation", who + " was signed for operation " + approval.operationId());
    }
    if (!ReviewDecision.NOT_SUBMITTED.wire().equals(approval.decision())) {
      return problem("other_decision", who + " approves " + approval.decision());
    }
    Instant expiresAt;
    try {
      expiresAt = Instant.parse(String.valueOf(approval.expiresAt()));
    } catch (DateTimeParseException e) {
      return problem("expired", who + " has no readable expiry");
    }
    Instant now = clock.instant();
    if (!expiresAt.isAfter(now)) {
      return problem("expired", who + " expired at " + expiresAt);
    }
    if (expiresAt.isAfter(now.plus(MAX_VALIDITY))) {
      return problem(
          "too_long", who + " holds until " + expiresAt + ", more than 24 h ahead: sign again");
    }
    boolean answersEvidence =
        digests.contains(approval.evidenceSha256())
            || (digests.isEmpty() && Approval.NO_EVIDENCE.equals(approval.evidenceSha256()));
    if (!answersEvidence) {
      return problem(
          "evidence_mismatch",
          who + " answers other evidence than this review's: read ops show and sign again");
    }
    PublicKey key;
    try {
      key = ApprovalKeys.publicKey(approver.get().publicKey());
    } catch (IllegalArgumentException e) {
      return problem("unknown_key", who + ": the registered key is not an Ed25519 key");
    }
    if (!approval.signedBy(key)) {
      return problem(
          "bad_signature", who + " does not verify under " + approval.approver() + "'s key");
    }
    return Optional.empty();
  }

  private static Optional<Problem> problem(String reason, String words) {
    return Optional.of(new Problem(reason, words));
  }

  private Checked refused(String reason, String why) {
    stats.approvalRefused(reason);
    return Checked.refused(why);
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
