package com.genace.activities.dispatch;

import com.genace.activities.ledger.Lease;

/**
 * Told when a POST is about to leave and when its outcome has been handled, so that a draining
 * worker knows which operations may have a request in flight and under which lease.
 */
public interface DispatchListener {

  DispatchListener NONE = new DispatchListener() {};

  /** The {@code submitting} evidence is committed and the POST leaves now. */
  default void sending(Lease lease) {}

  /** The POST's outcome has been recorded (or could not be). */
  default void finished(Lease lease) {}
}
