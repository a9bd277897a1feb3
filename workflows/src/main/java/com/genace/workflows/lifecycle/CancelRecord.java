package com.genace.workflows.lifecycle;

/** What became of a cancel request written to the operation's ledger row. */
public enum CancelRecord {
  /** The row holds this request now: no claim that leads to a POST takes the operation again. */
  RECORDED,
  /** The row already held a cancel request (the first one stays). */
  ALREADY_HELD,
  /** The operation had ended: nothing to cancel in the ledger. */
  ENDED,
  /** The operation is not in the ledger yet: the request is written once it is registered. */
  NOT_REGISTERED
}
