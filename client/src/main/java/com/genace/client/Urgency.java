package com.genace.client;

import io.temporal.common.Priority;
import java.util.Locale;

/**
 * How soon an operation's tasks are handed to workers, against others waiting in the same task
 * queue: Temporal's priority key (1 first, 5 last; 3 when none is given). Interactive renders
 * someone waits for go before batch work. The key is set when the operation starts, and its
 * workflow's and activities' tasks inherit it.
 */
public enum Urgency {
  INTERACTIVE(1),
  NORMAL(3),
  BATCH(5);

  private final int priorityKey;

  Urgency(int priorityKey) {
    this.priorityKey = priorityKey;
  }

  public int priorityKey() {
    return priorityKey;
  }

  /**
   * The priority an operation of {@code account} starts with, by a client or again by the worker (a
   * run restarted from the ledger): this urgency, and the account as the fairness key, so that one
   * account's backlog does not hold another's render behind it where the server has fairness on
   * (docs/deployment.md, "Fairness between accounts").
   */
  public Priority forAccount(String account) {
    return Priority.newBuilder().setPriorityKey(priorityKey).setFairnessKey(account).build();
  }

  /** {@code interactive}, {@code normal} or {@code batch}, as the CLI and clients write it. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * @throws IllegalArgumentException naming the three values
   */
  public static Urgency fromWire(String value) {
    for (Urgency urgency : values()) {
      if (urgency.wire().equals(value)) {
        return urgency;
      }
    }
    throw new IllegalArgumentException(
        "unknown priority '" + value + "'; expected interactive, normal or batch");
  }
}
