package com.genace.observation;

import io.temporal.activity.ActivityInterface;

/**
 * The long observation that workflows started before polling observation ({@code
 * observe-by-polling}, version 1) still schedule on {@code genace-operations}: one activity that
 * polls until the remote job is terminal, heartbeating and renewing its lease. Kept only so that
 * those workflows finish; new workflows use {@link ObservationActivities}.
 *
 * <p>Retried freely: every attempt claims the observe lease under a new revision and mirrors each
 * newer snapshot into the ledger. A denied or uncertain renewal ends the attempt with a retryable
 * failure; it never creates a render.
 */
@ActivityInterface
public interface LegacyObservationActivities {

  ObservationResult observe(String operationId);
}
