package com.genace.activities.ledger;

import com.genace.client.model.NextAction;
import java.time.Instant;

/**
 * Proof of a claimed action: every exclusive write binds the operation, owner, revision and action
 * given here, and the database also requires the lease to be unexpired at the time of the write.
 */
public record Lease(
    String operationId, String owner, long revision, NextAction action, Instant until) {

  /** The same lease with a later expiry, as returned by a successful renewal. */
  Lease renewedUntil(Instant newUntil) {
    return new Lease(operationId, owner, revision, action, newUntil);
  }
}
