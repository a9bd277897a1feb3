package com.genace.client.model;

import java.util.Arrays;
import java.util.Locale;

/** What an operation needs next; stored as {@code next_action} in the operations table. */
public enum NextAction {
  DISPATCH,
  OBSERVE,
  DELIVER,
  RECONCILE,
  NONE;

  /** The value stored in the table: {@code dispatch}, {@code observe}, ... */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a stored or user-given action.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static NextAction parse(String value) {
    for (NextAction action : values()) {
      if (action.wire().equals(value)) {
        return action;
      }
    }
    throw new IllegalArgumentException(
        "unknown action '"
            + value
            + "'; expected one of "
            + Arrays.stream(values()).map(NextAction::wire).toList());
  }
}
