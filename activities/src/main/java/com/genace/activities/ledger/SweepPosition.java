package com.genace.activities.ledger;

import java.time.Instant;

/**
 * A place in the orphan sweeper's walk over the unfinished operations, which goes in {@code (phase,
 * created_at)} order: the phase and creation time of the last operations checked (operations
 * created in the same microsecond are always read in the same page). {@link #START} (an empty
 * phase) comes before every operation.
 */
public record SweepPosition(String phase, Instant createdAt) {

  public static final SweepPosition START = new SweepPosition("", Instant.EPOCH);

  public SweepPosition {
    if (phase == null || createdAt == null) {
      throw new IllegalArgumentException("a sweep position has a phase and a time");
    }
  }

  public boolean isStart() {
    return phase.isEmpty();
  }
}
