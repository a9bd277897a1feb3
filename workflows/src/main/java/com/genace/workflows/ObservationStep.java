package com.genace.workflows;

import com.genace.model.Phase;
import com.genace.model.RemoteStatus;
import com.genace.model.ReviewReason;
import com.genace.observation.LegacyObservationActivities;
import com.genace.observation.ObservationActivities;
import com.genace.observation.ObservationResult;

/**
 * Observes the remote job until it is terminal: succeeded delivers, any other end fails the
 * operation, and a job that cannot be observed opens a review.
 *
 * <p>Observation is one activity that a worker's poll loop completes once the ledger's poll
 * schedule has seen the job end ({@link ObservationActivities#awaitRemoteJob}). Workflows started
 * before that keep what they were started with: one activity whose attempts are the polls (no
 * {@value VersionMarkers#OBSERVE_BY_SCHEDULE} marker), or, before that (no {@value
 * VersionMarkers#OBSERVE_BY_POLLING} marker), the long {@link LegacyObservationActivities#observe}.
 */
final class ObservationStep {

  private final OperationState operation;
  private final VersionMarkers versions;
  private final ReviewStep review;

  ObservationStep(OperationState operation, VersionMarkers versions, ReviewStep review) {
    this.operation = operation;
    this.versions = versions;
    this.review = review;
  }

  Step observe() {
    boolean polling = versions.observesByPolling();
    boolean scheduled = polling && versions.observesBySchedule();
    String remoteJobId = operation.remoteJobId();
    operation.setPhase(Phase.OBSERVING, "observing remote job " + remoteJobId);
    String summary = "GET /v1/generations/" + remoteJobId;
    ObservationResult observed;
    if (polling) {
      observed =
          scheduled
              ? ActivityStubs.awaitingPolls(summary).awaitRemoteJob(operation.operationId())
              : ActivityStubs.polling(summary).pollRemoteJob(operation.operationId());
      if (observed.endedInReview()) {
        // The poll recorded the review in the ledger itself, under its observe lease.
        return review.enter(observed.review(), observed.detail(), remoteJobId);
      }
    } else {
      observed = ActivityStubs.legacyObservation(summary).observe(operation.operationId());
      if (observed.endedInReview()) {
        return review.open(ReviewReason.REMOTE_JOB_UNOBSERVABLE, observed.detail(), remoteJobId);
      }
    }
    operation.recordRemoteStatus(observed.status());
    if (observed.status() == RemoteStatus.SUCCEEDED) {
      return Step.DELIVER;
    }
    return operation.finish(
        Phase.FAILED, "render " + observed.status().wire() + ": " + observed.detail());
  }
}
