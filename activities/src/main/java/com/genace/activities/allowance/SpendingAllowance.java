package com.genace.activities.allowance;

/** Decides whether a dispatch may spend now; consulted before every POST. */
public interface SpendingAllowance {

  /** The outcome of {@link #reserve}. */
  record Reservation(boolean granted, String reason) {}

  /** No limits and no bookkeeping: for tools and tests that do not need an allowance. */
  SpendingAllowance UNLIMITED =
      new SpendingAllowance() {
        @Override
        public Reservation reserve(String operationId, String account, String model) {
          return new Reservation(true, "unlimited");
        }

        @Override
        public void settle(String operationId, boolean spent) {}

        @Override
        public boolean limited() {
          return false;
        }
      };

  /**
   * Whether {@link #reserve} can refuse; when not, a dispatcher may mark an operation submitting
   * before asking.
   */
  default boolean limited() {
    return true;
  }

  /** Reserves the estimated credits of one dispatch, if they fit the allowance. */
  Reservation reserve(String operationId, String account, String model);

  /**
   * Settles the operation's open reservation: {@code spent} when a job may exist (accepted, or an
   * unknown outcome), released when none does (refused, not sent, rate limited, paused).
   */
  void settle(String operationId, boolean spent);
}
