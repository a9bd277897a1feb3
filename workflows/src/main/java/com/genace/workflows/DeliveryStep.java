package com.genace.workflows;

import com.genace.delivery.DeliveryActivities;
import com.genace.delivery.DeliveryResult;
import com.genace.model.Phase;
import io.temporal.failure.CanceledFailure;

/**
 * Copies the artifacts of a render that succeeded and ends the operation {@code delivered}. The
 * render is paid for: a delivery under way finishes even when a cancel request arrives, so that its
 * manifest is recorded; one not yet started when the cancel arrived starts only if the cancel asked
 * for the render to be delivered.
 */
final class DeliveryStep {

  private final OperationState operation;
  private final Cancellation cancellation;

  DeliveryStep(OperationState operation, Cancellation cancellation) {
    this.operation = operation;
    this.cancellation = cancellation;
  }

  Step deliver() {
    operation.setPhase(Phase.DELIVERING, "copying the artifacts of " + operation.remoteJobId());
    DeliveryActivities delivery =
        ActivityStubs.delivery("copy artifacts of " + operation.remoteJobId());
    if (cancellation.requested() && !cancellation.deliversRendering()) {
      throw new CanceledFailure("cancelled before delivery");
    }
    DeliveryResult delivered =
        cancellation.runDetached(() -> delivery.deliver(operation.operationId()));
    operation.recordArtifacts(delivered.artifacts());
    return operation.finish(
        Phase.DELIVERED, operation.artifacts().size() + " artifact(s) delivered");
  }
}
