package com.genace.activities.ledger;

import java.time.Instant;
import java.util.Optional;

/**
 * An operation claimed from the poll schedule.
 *
 * @param row the operation as the claim found it
 * @param pollCount the polls made so far for its waiting activity (the backoff's step)
 * @param token the claim's own due time: what its reschedule or finish must present
 * @param waiter the activity to complete with the outcome; empty if none registered
 */
public record DuePoll(
    OperationRow row, int pollCount, Instant token, Optional<ObservationWaiter> waiter) {}
