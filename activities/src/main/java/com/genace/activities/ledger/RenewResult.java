package com.genace.activities.ledger;

/** The outcome of {@link OperationsLedger#renew}. */
public sealed interface RenewResult {

  /** Still ours, until the new expiry. */
  record Renewed(Lease lease) implements RenewResult {}

  /** Not ours any more (expired, taken over, or released): stop all exclusive writes. */
  record Denied() implements RenewResult {}

  /**
   * The renewal's response was lost, so it may or may not have been applied. Ownership is
   * uncertain: stop exclusive writes until a new claim succeeds.
   */
  record Uncertain(String cause) implements RenewResult {}
}
