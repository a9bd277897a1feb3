package com.genace.ops.bench;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;

/** The benches claim only their own operations: a claim that acquires nothing is a bench bug. */
final class BenchClaims {

  private BenchClaims() {}

  /** The acquired claim, with what it returned (the request, the account). */
  static ClaimResult.Acquired acquired(ClaimResult claim) {
    if (claim instanceof ClaimResult.Acquired acquired) {
      return acquired;
    }
    throw new IllegalStateException("the bench could not claim its own operation: " + claim);
  }

  /** The acquired claim's lease. */
  static Lease lease(ClaimResult claim) {
    return acquired(claim).lease();
  }
}
