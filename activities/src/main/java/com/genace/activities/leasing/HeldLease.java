package com.genace.activities.leasing;

import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.OperationsLedger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A claimed lease that is handed back when the work under it ends without a write that ended it: an
 * exception, an early return. A failed attempt therefore never leaves its own lease behind, and its
 * retry (or another worker) claims at once instead of waiting for the lease to expire.
 *
 * <pre>{@code
 * try (HeldLease held = new HeldLease(ledger, lease)) {
 *   if (ledger.recordDelivered(lease, manifest) != WriteResult.UNCHANGED) {
 *     held.ended(); // applied: the write released it; denied: not ours any more
 *   }
 * }
 * }</pre>
 */
public final class HeldLease implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HeldLease.class);

  private final OperationsLedger ledger;
  private final Lease lease;
  private boolean held = true;

  public HeldLease(OperationsLedger ledger, Lease lease) {
    this.ledger = ledger;
    this.lease = lease;
  }

  public Lease lease() {
    return lease;
  }

  /**
   * The lease is no longer ours to release: a write released it (terminal transitions do), or a
   * write was denied (it was taken over or expired; releasing would only record another denial).
   */
  public void ended() {
    held = false;
  }

  /** Releases the lease unless it {@link #ended}; a failure to release is logged, not thrown. */
  @Override
  public void close() {
    if (!held) {
      return;
    }
    held = false;
    try {
      ledger.release(lease);
    } catch (RuntimeException e) {
      // It expires on its own; nothing was written under it that a retry would miss.
      log.warn(
          "could not release the {} lease of {} (revision {}): {}",
          lease.action().wire(),
          lease.operationId(),
          lease.revision(),
          e.getMessage());
    }
  }
}
