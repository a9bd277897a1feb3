package com.genace.workflows;

import com.genace.lifecycle.CancelRequest;
import com.genace.model.ReviewReason;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.util.function.Supplier;

/**
 * A cancel request (the {@code cancel} update with who and why, or Temporal's own) and the scope it
 * stops. What cannot be taken back runs to its end regardless: a dispatch attempt a worker has
 * started (its POST and the recording of its outcome; see {@link DispatchStep}), and, through
 * {@link #runDetached}, the opening of a review and a delivery under way.
 */
final class Cancellation {

  private final OperationState operation;

  /** The operation's steps, stopped by a cancel request. */
  private CancellationScope work;

  private CancelRequest request;

  /** A review opened after the cancel request: a POST answered unknown while being cancelled. */
  private boolean reviewOpenedAfterCancel;

  Cancellation(OperationState operation) {
    this.operation = operation;
  }

  /**
   * Runs the operation's steps in a scope that a cancel request stops (ours or Temporal's).
   *
   * @return whether a cancel request came
   */
  boolean runUntilCancelled(Runnable steps) {
    work = Workflow.newCancellationScope(steps);
    if (request != null) {
      work.cancel(request.describe());
    }
    try {
      work.run();
    } catch (CanceledFailure stopped) {
      // Whichever step it stopped, the bookkeeping after it reads where the operation stands.
    } catch (ActivityFailure failure) {
      // An activity the cancel request stopped (e.g. the wait for the remote job) reports it so.
      if (!(failure.getCause() instanceof CanceledFailure) || !work.isCancelRequested()) {
        throw failure;
      }
    }
    return work.isCancelRequested();
  }

  /** Whether the operation's steps are being cancelled. */
  boolean requested() {
    return work != null && work.isCancelRequested();
  }

  /** Runs a step that a cancel request must not stop, in a detached scope. */
  <T> T runDetached(Supplier<T> step) {
    var outcome =
        new Object() {
          T value;
        };
    Workflow.newDetachedCancellationScope(() -> outcome.value = step.get()).run();
    return outcome.value;
  }

  /**
   * Notes a review opened while the steps are being cancelled because a POST may have left: the
   * bookkeeping waits for its resolution before ending the operation.
   */
  void reviewOpened(ReviewReason reason) {
    if (requested()
        && (reason == ReviewReason.POST_OUTCOME_UNKNOWN
            || reason == ReviewReason.DISPATCH_INTERRUPTED)) {
      reviewOpenedAfterCancel = true;
    }
  }

  boolean reviewOpenedAfterCancel() {
    return reviewOpenedAfterCancel;
  }

  /** Whether a render Genace accepted is still observed and delivered. */
  boolean deliversRendering() {
    return request != null && request.deliversRendering();
  }

  /** The request being handled: the {@code cancel} update's, or else Temporal's, made one here. */
  CancelRequest handledRequest(String temporalReason) {
    if (request == null) {
      request = CancelRequest.fromTemporal(temporalReason);
    }
    return request;
  }

  /** The {@code cancel} update. */
  String accept(CancelRequest cancel) {
    if (request != null) {
      return "already cancelling (" + request.describe() + "); nothing changed";
    }
    request = cancel;
    if (work != null) {
      work.cancel(cancel.describe());
    }
    return "cancelling from phase " + operation.phase().wire() + ": " + cancel.describe();
  }

  /** The {@code cancel} update's validator. */
  void validate(CancelRequest cancel) {
    if (cancel == null) {
      throw new IllegalArgumentException("the cancel request is empty");
    }
    cancel
        .problem()
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(problem);
            });
    if (operation.ended()) {
      throw new IllegalArgumentException(
          "operation "
              + operation.operationId()
              + " has already ended "
              + operation.result().phase().wire());
    }
  }
}
