package com.genace.workflows.dispatch;

/** What became of one dispatch attempt. */
public enum DispatchOutcome {
  /** Genace created the job; its id is known and recorded. */
  ACCEPTED,
  /** Genace refused this request (400, 422, a 403 naming it): nothing was created; it fails. */
  REFUSED,
  /**
   * Genace refused the whole account (401, 402, a 403 about the account): nothing was created and
   * the fleet-wide dispatch circuit is open; the operation waits, as when paused, and is dispatched
   * again once the circuit closes. Never a review.
   */
  ACCOUNT_REFUSED,
  /** The connection was never established: nothing left; may be sent again after a backoff. */
  NOT_SENT,
  /** 429: nothing was created; send again after {@code Retry-After}. */
  RATE_LIMITED,
  /** Dispatch is paused or draining on this worker: nothing was sent. */
  PAUSED,
  /** The spending allowance is used up for now: nothing was sent; dispatch again later. */
  ALLOWANCE_EXHAUSTED,
  /** The POST may or may not have created a job: uncertainty review. */
  UNKNOWN,
  /** The ledger already had the operation in review (e.g. an earlier dispatch was interrupted). */
  IN_REVIEW,
  /**
   * The ledger holds a cancel request for the operation (V17): nothing was claimed or sent, and no
   * attempt ever will be; the result carries the request, and the workflow ends the operation as
   * cancelled.
   */
  CANCELLED
}
