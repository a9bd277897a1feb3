package com.genace.workflows.dispatch;

import com.genace.client.CancelRequest;

/**
 * One dispatch attempt's result. {@code remoteJobId} is set for {@code ACCEPTED}, and for {@code
 * UNKNOWN} when Genace answered but the answer could not be recorded (evidence for the review).
 * {@code cancel} is the cancel request the ledger holds for the operation, when the attempt found
 * one (always for {@code CANCELLED}): a run that did not accept that cancel itself (one the sweeper
 * restarted, or a client started again) takes it over. Null in results recorded before it existed.
 * {@code credits}: for {@code ACCEPTED}, the estimated credits the ledger committed with the
 * acceptance (V18), which {@code describe} shows; null otherwise, and in results recorded before it
 * existed.
 */
public record DispatchResult(
    DispatchOutcome outcome,
    String remoteJobId,
    String detail,
    long retryAfterMillis,
    CancelRequest cancel,
    Long credits) {

  public DispatchResult(
      DispatchOutcome outcome,
      String remoteJobId,
      String detail,
      long retryAfterMillis,
      CancelRequest cancel) {
    this(outcome, remoteJobId, detail, retryAfterMillis, cancel, null);
  }

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
        : new DispatchResult(outcome, remoteJobId, detail, retryAfterMillis, ledgerCancel, credits);
  }

  /** The same result, carrying the credits committed with its acceptance. */
  public DispatchResult withCredits(long committed) {
    return new DispatchResult(outcome, remoteJobId, detail, retryAfterMillis, cancel, committed);
  }
}
