package com.genace.observation;

import io.temporal.activity.ActivityInterface;

/**
 * Reads the remote job's status until it is terminal. Retried freely: every attempt claims the
 * observe lease under a new revision, polls with backoff, jitter and {@code Retry-After},
 * heartbeats, renews its lease, and mirrors each newer snapshot into the ledger. A denied or
 * uncertain renewal ends the attempt with a retryable failure; it never creates a render.
 */
@ActivityInterface
public interface ObservationActivities {

  ObservationResult observe(String operationId);
}
