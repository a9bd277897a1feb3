package com.genace.workflows;

import com.genace.client.CancelRequest;
import com.genace.client.Step;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.lifecycle.CancelOutcome;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.util.function.Consumer;

/**
 * Ends a cancelled operation according to where it stood, in a detached scope so that a cancel
 * request cannot stop it:
 *
 * <ol>
 *   <li>a review opened because a POST answered unknown while being cancelled waits for its
 *       resolution first: the render may exist and be paid for, and only an operator can say;
 *   <li>a render Genace accepted is still observed and delivered if the request asks for it;
 *   <li>the ledger ends the operation under a fenced write, recording who and why; while it answers
 *       that a POST may have left, a review waits for an operator and the ledger is asked again.
 * </ol>
 *
 * <p>After a cancel through the {@code cancel} update the workflow completes with a result that
 * says how the operation ended and why; after a Temporal cancel request it closes as cancelled,
 * once the ledger has recorded the end (Temporal closes a workflow whose cancel was requested that
 * way).
 */
final class CancelBookkeeping {

  private static final OperationLog log = OperationLog.ofWorkflow();

  private final OperationState operation;
  private final Cancellation cancellation;
  private final ReviewStep review;

  CancelBookkeeping(OperationState operation, Cancellation cancellation, ReviewStep review) {
    this.operation = operation;
    this.cancellation = cancellation;
    this.review = review;
  }

  /**
   * @param resume runs the operation's steps from the given one, as the workflow does
   */
  void end(Consumer<Step> resume) {
    String temporalReason = CancellationScope.current().getCancellationReason();
    Workflow.newDetachedCancellationScope(() -> endDetached(temporalReason, resume)).run();
  }

  private void endDetached(String temporalReason, Consumer<Step> resume) {
    CancelRequest cancel = cancellation.handledRequest(temporalReason);
    // Before anything else: whatever happens to this run from here, the ledger holds the request.
    cancellation.recordIfNotInLedger();
    if (!cancellation.resumed()) {
      log.warn(
          operation.operationId(),
          operation.remoteJobId(),
          "operation {}: {} (phase {})",
          operation.operationId(),
          cancel.describe(),
          operation.phase().wire());
      WorkflowCounters.increment(WorkflowCounters.OPERATIONS_CANCELLED);
    }
    Step next = !operation.ended() && operation.phase() == Phase.OBSERVING ? Step.OBSERVE : null;
    if (!operation.ended()
        && operation.phase() == Phase.IN_REVIEW
        && cancellation.reviewOpenedAfterCancel()) {
      operation.setPhase(
          Phase.IN_REVIEW,
          "a POST answered unknown while being cancelled: waiting for an operator ("
              + cancel.describe()
              + ")");
      next = review.awaitResolution() == Step.OBSERVE ? Step.OBSERVE : null;
    }
    if (next != null && cancel.deliversRendering()) {
      try {
        resume.accept(next);
      } catch (CanceledFailure noDispatch) {
        // The render was lost on the way (an operator said not_submitted): no POST after a cancel.
      }
    }
    CancelOutcome ended = endInLedger(cancel);
    while (!operation.ended() && ended.phase() == Phase.IN_REVIEW) {
      review.enter(ReviewReason.DISPATCH_INTERRUPTED, "cancelled while a POST may have left", null);
      review.awaitResolution();
      ended = endInLedger(cancel);
    }
    if (operation.ended()) {
      operation.addToResult(cancel.describe());
      return;
    }
    if (ended.remoteJobId() != null) {
      operation.recordRemoteJob(ended.remoteJobId());
    }
    operation.finish(
        ended.phase(),
        cancel.describe()
            + (operation.remoteJobId() == null
                ? "; no render was accepted"
                : "; remote job recorded"));
  }

  private CancelOutcome endInLedger(CancelRequest cancel) {
    return ActivityStubs.cancellation("record the cancellation")
        .endCancelled(operation.operationId(), cancel.requestedBy(), cancel.reason());
  }
}
