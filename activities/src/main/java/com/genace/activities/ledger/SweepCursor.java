package com.genace.activities.ledger;

import java.time.Instant;

/**
 * The orphan sweeper's stored position (table {@code app_sweep_cursor}): where the next pass
 * resumes, the generation a pass must name to move it, and how many walks over every unfinished
 * operation have been completed.
 */
public record SweepCursor(
    SweepPosition position,
    long generation,
    long walksCompleted,
    Instant movedAt,
    String movedBy) {}
