package com.genace.activities.ledger;

/**
 * Where the ledger reports what its writes did, injected by whoever runs it (the worker counts them
 * in its metrics registry; tools and tests pass {@link #NONE}).
 */
public interface LedgerStats {

  LedgerStats NONE = new LedgerStats() {};

  /** An accepted state change was recorded, as {@code event} in the history. */
  default void transition(String event) {}

  /** The lease fence denied an exclusive write; a diagnostic row was kept. */
  default void denied(String write) {}
}
