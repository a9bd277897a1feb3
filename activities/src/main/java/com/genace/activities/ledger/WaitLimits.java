package com.genace.activities.ledger;

import com.genace.client.model.Phase;
import java.time.Duration;
import java.util.Optional;

/**
 * How long an operation may stay observing (its render not finished) or delivering (its artifacts
 * not all copied) before an operator hears of it: one ERROR line per operation and phase ({@link
 * OperationsLedger#reportWaitingTooLong}). Nothing stops or fails the operation: observation and
 * delivery go on retrying, only no longer in silence. Set with {@code
 * GENACE_OBSERVING_TOO_LONG_SECONDS} and {@code GENACE_DELIVERING_TOO_LONG_SECONDS}.
 */
public record WaitLimits(Duration observing, Duration delivering) {

  /** Six hours for a render (renders take seconds to minutes), an hour for a copy. */
  public static final WaitLimits DEFAULT = new WaitLimits(Duration.ofHours(6), Duration.ofHours(1));

  public WaitLimits {
    if (observing == null
        || delivering == null
        || observing.isNegative()
        || observing.isZero()
        || delivering.isNegative()
        || delivering.isZero()) {
      throw new IllegalArgumentException("wait limits must be positive");
    }
  }

  /** The limit of {@code phase}, if it has one (observing and delivering only). */
  public Optional<Duration> of(Phase phase) {
    return switch (phase) {
      case OBSERVING -> Optional.of(observing);
      case DELIVERING -> Optional.of(delivering);
      default -> Optional.empty();
    };
  }
}
