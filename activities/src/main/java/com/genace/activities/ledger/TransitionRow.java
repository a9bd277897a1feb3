package com.genace.activities.ledger;

import java.time.Instant;
import java.util.Optional;

/**
 * One row of the append-only history: an accepted transition, or ({@code accepted == false}) a
 * denied exclusive write kept for diagnosis.
 */
public record TransitionRow(
    long id,
    String operationId,
    long revision,
    Optional<String> owner,
    String event,
    Optional<String> fromPhase,
    Optional<String> toPhase,
    boolean accepted,
    String detailsJson,
    Instant at) {}
