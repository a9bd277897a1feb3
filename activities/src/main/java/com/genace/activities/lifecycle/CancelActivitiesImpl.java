package com.genace.activities.lifecycle;

import com.genace.activities.leasing.HeldLease;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.CancelRequest;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.lifecycle.CancelActivities;
import com.genace.workflows.lifecycle.CancelOutcome;
import com.genace.workflows.lifecycle.CancelRecord;
import io.temporal.failure.ApplicationFailure;

/** Ends a cancelled operation in the ledger under a lease on its current action. */
public final class CancelActivitiesImpl implements CancelActivities {

  /** The failure type of an attempt that must wait for another lease; Temporal retries it. */
  public static final String LEASE_HELD = "CancelWaitsForLease";

  private final OperationsLedger ledger;
  private final String owner;

  public CancelActivitiesImpl(OperationsLedger ledger, String owner) {
    this.ledger = ledger;
    this.owner = owner;
  }

  @Override
  public CancelOutcome endCancelled(String operationId, String requestedBy, String reason) {
    OperationRow row = ledger.get(operationId);
    String remoteJobId = row.remoteJobId().orElse(null);
    if (row.phase().isTerminal()) {
      ledger.noteCancelAfterEnd(operationId, owner, requestedBy, reason);
      return new CancelOutcome(row.phase(), remoteJobId);
    }
    if (row.phase() == Phase.SUBMITTING) {
      // A POST may have left: once its lease is free or expired, the claim moves it to review.
      if (ledger.claim(operationId, owner, NextAction.DISPATCH)
          instanceof ClaimResult.MovedToReview) {
        return new CancelOutcome(Phase.IN_REVIEW, remoteJobId);
      }
      throw waiting("a POST of " + operationId + " is in flight; waiting for its outcome");
    }
    ClaimResult claim = ledger.claim(operationId, owner, row.nextAction());
    if (claim instanceof ClaimResult.Acquired acquired) {
      try (HeldLease held = new HeldLease(ledger, acquired.lease())) {
        WriteResult written = ledger.cancel(acquired.lease(), requestedBy, reason);
        if (written != WriteResult.UNCHANGED) {
          held.ended();
        }
        if (written == WriteResult.APPLIED) {
          return new CancelOutcome(Phase.ABANDONED, acquired.remoteJobId().orElse(remoteJobId));
        }
      }
      throw waiting("the cancellation of " + operationId + " was not recorded; trying again");
    }
    // Another worker holds the current action's lease (a dispatch, a delivery, a review step):
    // what it records must not be lost.
    throw waiting(
        "operation "
            + operationId
            + " is "
            + row.phase().wire()
            + " under another lease; cancelling once it is released");
  }

  @Override
  public CancelRecord requestCancel(String operationId, CancelRequest request) {
    return ledger.requestCancel(
        operationId, request.requestedBy(), request.reason(), request.deliverRendering());
  }

  private static ApplicationFailure waiting(String message) {
    return ApplicationFailure.newFailure(message, LEASE_HELD);
  }
}
