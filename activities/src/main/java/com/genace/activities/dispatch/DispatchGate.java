package com.genace.activities.dispatch;

import java.util.Optional;

/**
 * Whether this worker may send a new POST right now. Checked before the dispatch is claimed, so
 * that a closed gate turns the dispatch away without a ledger write, and again immediately before
 * sending, after the {@code submitting} evidence is committed, so that a pause or drain that began
 * meanwhile still stops the POST.
 */
@FunctionalInterface
public interface DispatchGate {

  /** Always open: for tests and tools that have no pause or drain. */
  DispatchGate OPEN = Optional::empty;

  /** Empty when dispatch is allowed; otherwise why not (e.g. {@code dispatch_paused}). */
  Optional<String> closedReason();
}
