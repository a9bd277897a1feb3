package com.genace.activities.lifecycle;

import java.time.Duration;
import java.util.Optional;

/**
 * How long an ended operation's row is kept: the configured days, but never less than Temporal
 * keeps the operation's closed workflow (the namespace's retention) plus a day for Temporal to
 * delete it. A workflow id whose row is gone is then free: a start with the same operation id
 * begins a new operation, as the reuse policy (reject duplicate) allows only once no closed
 * workflow holds the id; while the row stands, a start with another request is refused.
 */
public final class RetentionWindow {

  /** Temporal deletes a closed workflow some time after its retention ran out; this covers it. */
  public static final Duration TEMPORAL_DELETION_MARGIN = Duration.ofDays(1);

  private RetentionWindow() {}

  /**
   * @param namespaceRetention how long the namespace keeps closed workflows, when it could be read
   */
  public static Duration effective(int retentionDays, Optional<Duration> namespaceRetention) {
    Duration configured = Duration.ofDays(retentionDays);
    if (retentionDays == 0) {
      return Duration.ZERO;
    }
    return namespaceRetention
        .map(temporal -> temporal.plus(TEMPORAL_DELETION_MARGIN))
        .filter(temporal -> temporal.compareTo(configured) > 0)
        .orElse(configured);
  }
}
