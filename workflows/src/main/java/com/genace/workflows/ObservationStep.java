package com.genace.workflows;

import com.genace.client.Step;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
import com.genace.workflows.observation.ObservationActivities;
import com.genace.workflows.observation.ObservationResult;
import io.temporal.workflow.Async;

/**
 * Observes the remote job until it is terminal: succeeded delivers, any other end fails the
 * operation, and a job that cannot be observed opens a review.
 *
 * <p>Observation is one activity that a worker's poll loop completes once the ledger's poll
 * schedule has seen the job end ({@link ObservationActivities#awaitRemoteJob}). A run whose history
 * grows long meanwhile continues as new and observes again ({@link RunChain#awaitOrContinue}).
 */
final class ObservationStep {

  private final OperationState operation;
  private final ReviewStep review;
  private final RunChain chain;

  ObservationStep(OperationState operation, ReviewStep review, RunChain chain) {
    this.operation = operation;
    this.review = review;
    this.chain = chain;
  }

  Step observe() {
    String remoteJobId = operation.remoteJobId();
    operation.setPhase(Phase.OBSERVING, "observing remote job " + remoteJobId);
    String summary = "GET /v1/generations/" + remoteJobId;
    ObservationActivities observation = ActivityStubs.observation(summary);
    ObservationResult observed =
        chain.awaitOrContinue(
            Step.OBSERVE, Async.function(observation::awaitRemoteJob, operation.operationId()));
    if (observed.endedInReview()) {
      // The status poll that opened the review recorded it in the ledger, under its observe lease.
      return review.enter(observed.review(), observed.detail(), remoteJobId);
    }
    operation.recordRemoteStatus(observed.status());
    if (observed.status() == RemoteStatus.SUCCEEDED) {
      return Step.DELIVER;
    }
    return operation.finish(
        Phase.FAILED, "render " + observed.status().wire() + ": " + observed.detail());
  }
}
