package com.genace.activities.review;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.recovery.OperationHistory;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.stats.ActivityStats.Resolver;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import com.genace.workflows.model.FailureTypes;
import com.genace.workflows.review.ReviewActivities;
import com.genace.workflows.review.ReviewOpened;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;

/** The review's ledger steps; each one idempotent. */
public final class ReviewActivitiesImpl implements ReviewActivities {

  /** The resolution breaks the rules of a decision; the ledger would refuse it on every attempt. */
  private static final String INVALID_RESOLUTION = "InvalidResolution";

  /** The resolution could not be recorded now (lease held, phase moving): retried. */
  private static final String RESOLUTION_NOT_RECORDED = "ResolutionNotRecorded";

  private final OperationsLedger ledger;
  private final String owner;
  private final ActivityStats stats;
  private final ApprovalCheck approvals;
  private final NotSubmittedGuard notSubmitted;

  /**
   * @param history what Temporal holds for an operation: a {@code not_submitted} is refused when it
   *     (or the ledger) shows that a POST may have been accepted ({@link NotSubmittedGuard})
   */
  public ReviewActivitiesImpl(
      OperationsLedger ledger, OperationHistory history, String owner, ActivityStats stats) {
    this(
        ledger,
        history,
        owner,
        stats,
        new ApprovalCheck(ledger, Clock.systemUTC(), OptionalLong.empty(), stats));
  }

  /**
   * @param approvals who may spend again: the signed approvals a {@code not_submitted} needs
   */
  public ReviewActivitiesImpl(
      OperationsLedger ledger,
      OperationHistory history,
      String owner,
      ActivityStats stats,
      ApprovalCheck approvals) {
    this.ledger = ledger;
    this.owner = owner;
    this.stats = stats;
    this.notSubmitted = new NotSubmittedGuard(ledger, history);
    this.approvals = approvals;
  }

  @Override
  public ReviewOpened openReview(String operationId, ReviewReason reason, String detail) {
    ClaimResult claim = ledger.claim(operationId, owner, NextAction.DISPATCH);
    if (claim instanceof ClaimResult.MovedToReview moved) {
      return ReviewOpened.opened(ReviewReason.parse(moved.reviewReason()));
    }
    if (claim instanceof ClaimResult.Acquired acquired) {
      Lease lease = acquired.lease();
      if (reason == ReviewReason.POST_OUTCOME_UNKNOWN) {
        // A dispatch claim acquires only a pending operation, and every POST is preceded by the
        // commit of `submitting`: no attempt got that far, and the new revision fences any dispatch
        // still holding an older claim. (One that has not claimed yet races the next dispatch for
        // the single pending -> submitting step.) Nothing was sent, so nothing needs a review.
        ledger.release(lease);
        return ReviewOpened.provablyNothingSent();
      }
      if (ledger.openReview(lease, reason.wire(), detail) != WriteResult.APPLIED) {
        throw ApplicationFailure.newFailure(
            "could not open the review of " + operationId + "; retrying", "ReviewNotOpened");
      }
      return ReviewOpened.opened(reason);
    }
    OperationRow row = ((ClaimResult.NotAcquired) claim).current();
    return switch (row.phase()) {
      case IN_REVIEW ->
          ReviewOpened.opened(row.reviewReason().map(ReviewReason::parse).orElse(reason));
      case OBSERVING, DELIVERING, DELIVERED ->
          ReviewOpened.alreadyAccepted(row.remoteJobId().orElseThrow());
      case SUBMITTING, PENDING ->
          // A live dispatch lease: wait it out (Temporal retries) so a late result is not lost.
          throw ApplicationFailure.newFailure(
              "dispatch lease of "
                  + operationId
                  + " is held by "
                  + row.leaseOwner().orElse("?")
                  + " until "
                  + row.leaseUntil().map(Object::toString).orElse("?"),
              "DispatchLeaseHeld");
      case FAILED, ABANDONED -> throw ended(row);
    };
  }

  /**
   * The operation ended in the ledger: the workflow ends the same way (its phase is the detail).
   */
  private static ApplicationFailure ended(OperationRow row) {
    return ApplicationFailure.newNonRetryableFailure(
        "operation "
            + row.operationId()
            + " already ended "
            + row.phase().wire()
            + row.failureReason().map(reason -> ": " + reason).orElse(""),
        FailureTypes.OPERATION_ENDED,
        row.phase().wire());
  }

  /** The reconciler for a review that settled itself, else an operator. */
  private static Resolver resolvedBy(ReviewResolution resolution) {
    return GenerationWorkflow.RECONCILER.equals(resolution.resolvedBy())
        ? Resolver.RECONCILER
        : Resolver.OPERATOR;
  }

  @Override
  public void recordResolution(String operationId, ReviewResolution resolution) {
    ReviewDecision decision =
        resolution
            .parsedDecision()
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        resolution.problem().orElse("invalid resolution"), INVALID_RESOLUTION));
    String resolver = resolution.resolver();
    if (decision == ReviewDecision.NOT_SUBMITTED) {
      ApprovalCheck.Checked approved = approvals.check(operationId, resolution);
      if (approved.refusal().isPresent()) {
        throw ApplicationFailure.newNonRetryableFailure(
            approved.refusal().get(), INVALID_RESOLUTION);
      }
      Optional<String> refused = notSubmitted.refusal(operationId);
      if (refused.isPresent()) {
        // Both stores read before the claim: a refusal leaves the review as it was.
        throw ApplicationFailure.newNonRetryableFailure(refused.get(), INVALID_RESOLUTION);
      }
      if (!approved.approvers().isEmpty()) {
        // The audit names the keys that signed, never the payload's free text alone.
        resolver = String.join("+", approved.approvers()) + " (signed)";
      }
    }
    Optional<String> caller =
        resolution.claimsReconciler()
            ? Optional.empty()
            : ResolutionCaller.of(operationId, resolution);
    ClaimResult claim = ledger.claim(operationId, owner, NextAction.RECONCILE);
    if (claim instanceof ClaimResult.Acquired acquired) {
      // A found job commits credits unless the operation's were committed already (a review
      // opened while observing): read under the lease, before the resolution writes them.
      boolean commitsCredits =
          decision == ReviewDecision.FOUND_REMOTE_JOB
              && ledger.get(operationId).creditsCommittedAt().isEmpty();
      WriteResult written;
      try {
        written =
            ledger.resolveReview(
                acquired.lease(),
                decision,
                Optional.ofNullable(resolution.remoteJobId()).map(String::trim),
                resolver,
                caller,
                resolution.reason());
      } catch (IllegalArgumentException refused) {
        // The ledger will refuse it on every attempt: the review stays open for another one.
        ledger.release(acquired.lease());
        throw ApplicationFailure.newNonRetryableFailure(refused.getMessage(), INVALID_RESOLUTION);
      }
      if (written != WriteResult.APPLIED) {
        throw ApplicationFailure.newFailure(
            "could not record the resolution of " + operationId + "; retrying",
            RESOLUTION_NOT_RECORDED);
      }
      stats.reviewResolved(resolvedBy(resolution));
      if (commitsCredits) {
        stats.creditsCommitted(
            acquired.account(), acquired.model(), ledger.creditEstimate().costOf(acquired.model()));
      }
      return;
    }
    OperationRow row = ((ClaimResult.NotAcquired) claim).current();
    boolean alreadyRecorded =
        row.reviewResolution().map(decision.wire()::equals).orElse(false)
            && row.phase() != Phase.IN_REVIEW;
    if (!alreadyRecorded && row.phase().isTerminal()) {
      throw ended(row);
    }
    if (!alreadyRecorded) {
      throw ApplicationFailure.newFailure(
          "operation "
              + operationId
              + " cannot take the resolution now (phase "
              + row.phase().wire()
              + ")",
          RESOLUTION_NOT_RECORDED);
    }
  }
}
