package com.genace.workflows;

import com.genace.client.GenerationWorkflow;
import com.genace.client.model.ReviewDecision;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import io.temporal.failure.ActivityFailure;

/**
 * Asks Genace what it knows about an operation whose review just opened. With exactly one job
 * carrying its id (and self-settling on) the review resolves itself with that job, unless an
 * operator answered while the evidence was gathered: the operator goes first. Without evidence
 * (Genace unreachable for every attempt) the review simply waits for an operator.
 */
final class EvidenceGathering {

  private static final OperationLog log = OperationLog.ofWorkflow();

  private final OperationState operation;
  private final ResolutionInbox inbox;
  private boolean gathering;

  EvidenceGathering(OperationState operation, ResolutionInbox inbox) {
    this.operation = operation;
    this.inbox = inbox;
  }

  /** Whether the evidence is being gathered (the review is not resolvable meanwhile). */
  boolean gathering() {
    return gathering;
  }

  void gather(String seenJobId) {
    String operationId = operation.operationId();
    gathering = true;
    ReviewEvidence evidence;
    try {
      evidence =
          ActivityStubs.evidence("gather evidence on Genace")
              .gatherEvidence(operationId, seenJobId);
    } catch (ActivityFailure failure) {
      log.warn(
          operationId,
          seenJobId,
          "operation {}: no evidence gathered: {}",
          operationId,
          ActivityFailures.describe(failure));
      return;
    } finally {
      gathering = false;
    }
    operation.recordReview(operation.review().withEvidence(evidence));
    if (evidence.duplicates()) {
      // No review settles itself on duplicates: the ERROR that calls an operator follows, with
      // this summary in it.
      log.warn(operationId, seenJobId, "operation {}: {}", operationId, evidence.summary());
    }
    if (evidence.selfSettleJobId() != null && !inbox.hasPending()) {
      ReviewResolution settled =
          new ReviewResolution(
              ReviewDecision.FOUND_REMOTE_JOB.wire(),
              evidence.selfSettleJobId(),
              "settled by itself: " + evidence.summary(),
              GenerationWorkflow.RECONCILER);
      inbox.settle(settled);
      log.info(
          operationId,
          settled.remoteJobId(),
          "operation {}: review settles itself with {}: {}",
          operationId,
          settled.remoteJobId(),
          evidence.summary());
    }
    operation.showDetails();
  }
}
