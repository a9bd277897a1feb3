package com.genace.dispatch;

import com.genace.lifecycle.CancelRequest;

/**
 * One dispatch attempt's result. {@code remoteJobId} is set for {@code ACCEPTED}, and for {@code
 * UNKNOWN} when Genace answered but the answer could not be recorded (evidence for the review).
 * {@code cancel} is the cancel request the ledger holds for the operation, when the attempt found
 * one (always for {@code CANCELLED}): a run that did not accept that cancel itself (one the sweeper
 * restarted, or a client started again) takes it over. Null in results recorded before it existed.
 */
public record DispatchResult(
    DispatchOutcome outcome,
    String remoteJobId,
    String detail,
    long retryAfterMillis,
    CancelRequest cancel) {

  public DispatchResult(
      DispatchOutcome outcome, String remoteJobId, String detail, long retryAfterMillis) {
    this(outcome, remoteJobId, detail, retryAfterMillis, null);
  }

  public static DispatchResult of(DispatchOutcome outcome, String detail) {
    return new DispatchResult(outcome, null, detail, 0);
  }

  /** The same result, carrying the cancel request the ledger holds (none: unchanged). */
  public DispatchResult withCancel(CancelRequest ledgerCancel) {
    return ledgerCancel == null
        ? this
        : new DispatchResult(outcome, remoteJobId, detail, retryAfterMillis, ledgerCancel);
  }
}
