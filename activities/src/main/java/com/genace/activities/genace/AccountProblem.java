package com.genace.activities.genace;

import java.util.Optional;

/**
 * Why Genace refuses every request of this account, whatever it asks for. Each has the stable
 * reason that the fleet-wide dispatch circuit, the status document and the metrics show.
 */
public enum AccountProblem {
  /** 401, or a 403 about the account: the API key was revoked, rotated or lacks permission. */
  AUTHENTICATION("genace_auth_refused"),
  /** 402: the account's credit balance is empty. */
  CREDITS("genace_credits_exhausted");

  private final String wire;

  AccountProblem(String wire) {
    this.wire = wire;
  }

  /** The stable reason, e.g. {@code genace_auth_refused}. */
  public String wire() {
    return wire;
  }

  /** The problem whose {@link #wire()} this is, if any. */
  public static Optional<AccountProblem> fromWire(String wire) {
    for (AccountProblem problem : values()) {
      if (problem.wire.equals(wire)) {
        return Optional.of(problem);
      }
    }
    return Optional.empty();
  }
}
