package com.genace.client.model;

import java.util.Arrays;
import java.util.Locale;

/**
 * Where a generation operation stands. Each phase has exactly one {@link NextAction}; the table's
 * row trigger ({@code app_generation_operations_rules}, migrations V12, V13 and V27) enforces the
 * same pairing.
 */
public enum Phase {
  /** Created; no POST has been attempted, or the last attempt provably sent nothing. */
  PENDING(NextAction.DISPATCH),
  /** A POST may have left: recorded before sending, so a crash here leads to review. */
  SUBMITTING(NextAction.DISPATCH),
  /** Genace accepted the job; its status is being read by the durable remote job id. */
  OBSERVING(NextAction.OBSERVE),
  /** The render succeeded; artifacts are being copied to the application's store. */
  DELIVERING(NextAction.DELIVER),
  /** The dispatch outcome is unknown; waits for an operator's resolution. */
  IN_REVIEW(NextAction.RECONCILE),
  DELIVERED(NextAction.NONE),
  FAILED(NextAction.NONE),
  ABANDONED(NextAction.NONE);

  private final NextAction nextAction;

  Phase(NextAction nextAction) {
    this.nextAction = nextAction;
  }

  public NextAction nextAction() {
    return nextAction;
  }

  public boolean isTerminal() {
    return nextAction == NextAction.NONE;
  }

  /** The value stored in the table: {@code pending}, {@code in_review}, ... */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a stored or user-given phase.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static Phase parse(String value) {
    for (Phase phase : values()) {
      if (phase.wire().equals(value)) {
        return phase;
      }
    }
    throw new IllegalArgumentException(
        "unknown phase '"
            + value
            + "'; expected one of "
            + Arrays.stream(values()).map(Phase::wire).toList());
  }
}
