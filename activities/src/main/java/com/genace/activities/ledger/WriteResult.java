package com.genace.activities.ledger;

/** The outcome of a fenced write. */
public enum WriteResult {
  /** The lease was valid and the transition was applied. */
  APPLIED,
  /**
   * The lease was valid but the transition is not permitted from the current state (for a snapshot:
   * not newer than the stored one). Nothing changed.
   */
  UNCHANGED,
  /**
   * The lease was expired, taken over or never ours: nothing changed, a diagnostic row was kept.
   */
  DENIED
}
