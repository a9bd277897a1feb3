package com.genace.activities.ledger;

/** The outcome of {@link OperationsLedger#recordObservedSnapshot}. A database error is thrown. */
public sealed interface ObservedSnapshot {

  /** The snapshot was newer and is recorded under {@code revision}; no lease is left behind. */
  record Recorded(long revision) implements ObservedSnapshot {}

  /**
   * Nothing changed, and no history row was kept unless the snapshot was older than the stored one
   * (a {@code not_permitted} diagnostic, as a fenced write keeps). {@code current} is the row as it
   * stood when the statement began.
   */
  record Refused(Reason reason, OperationRow current) implements ObservedSnapshot {}

  enum Reason {
    /** Another owner's observe lease has not expired (by the database's clock). */
    LEASED,
    /** The operation is no longer observing (recorded by someone else, in review, cancelled). */
    MOVED_ON,
    /** The operation observes another remote job than the one that was polled. */
    JOB_CHANGED,
    /** The stored status is as new as this one or newer. */
    NOT_NEWER,
    /**
     * The row changed while the statement waited for its lock, so the row it began with does not
     * say why: read it again.
     */
    CONTENDED
  }
}
