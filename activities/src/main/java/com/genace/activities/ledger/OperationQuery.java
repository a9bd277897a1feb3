package com.genace.activities.ledger;

import com.genace.client.model.Phase;
import java.time.Duration;
import java.util.Optional;

/**
 * Which operations to list, and how: one phase and one account (both optional), created at least
 * {@code olderThan} ago, the page after the operation {@code after} (in {@code order}), at most
 * {@code limit} rows.
 */
public record OperationQuery(
    Optional<Phase> phase,
    Optional<String> account,
    Duration olderThan,
    Optional<String> after,
    ListOrder order,
    int limit) {

  /** The newest {@code limit} operations, optionally in one phase. */
  public static OperationQuery newest(Optional<Phase> phase, int limit) {
    return new OperationQuery(
        phase, Optional.empty(), Duration.ZERO, Optional.empty(), ListOrder.NEWEST_FIRST, limit);
  }
}
