package com.genace.workflows.delivery;

import io.temporal.activity.ActivityInterface;

/**
 * Copies a succeeded job's outputs to the artifact store under deterministic keys, checking each
 * stored object (size and sha256) before copying it again, then records the manifest. Retried
 * freely.
 */
@ActivityInterface
public interface DeliveryActivities {

  DeliveryResult deliver(String operationId);
}
