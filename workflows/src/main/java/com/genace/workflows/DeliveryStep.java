package com.genace.workflows;

import com.genace.client.Step;
import com.genace.client.model.Phase;
import com.genace.workflows.delivery.DeliveryActivities;
import com.genace.workflows.delivery.DeliveryResult;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;

/**
 * Copies the artifacts of a render that succeeded and ends the operation {@code delivered}. The
 * render is paid for: a delivery under way finishes even when a cancel request arrives, so that its
 * manifest is recorded; one not yet started when the cancel arrived starts only if the cancel asked
 * for the render to be delivered. A run whose history grows long while it delivers continues as new
 * and delivers again ({@link RunChain#awaitOrContinue}); the ledger's lease keeps the two attempts
 * apart, and the next one skips what the store already holds.
 */
final class DeliveryStep {

  private final OperationState operation;
  private final Cancellation cancellation;
  private final RunChain chain;

  DeliveryStep(OperationState operation, Cancellation cancellation, RunChain chain) {
    this.operation = operation;
    this.cancellation = cancellation;
    this.chain = chain;
  }

  Step deliver() {
    operation.setPhase(Phase.DELIVERING, "copying the artifacts of " + operation.remoteJobId());
    DeliveryActivities delivery =
        ActivityStubs.delivery("copy artifacts of " + operation.remoteJobId());
    if (cancellation.requested() && !cancellation.deliversRendering()) {
      throw new CanceledFailure("cancelled before delivery");
    }
    Promise<DeliveryResult> delivering =
        cancellation.runDetached(() -> Async.function(delivery::deliver, operation.operationId()));
    DeliveryResult delivered = chain.awaitOrContinue(Step.DELIVER, delivering);
    operation.recordArtifacts(delivered.artifacts());
    return operation.finish(
        Phase.DELIVERED, operation.artifacts().size() + " artifact(s) delivered");
  }
}
