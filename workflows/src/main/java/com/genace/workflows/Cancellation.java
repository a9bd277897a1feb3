package com.genace.workflows;

import com.genace.client.CancelRequest;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.lifecycle.CancelRecord;
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

  /** The request is in the ledger row (or the ledger has nothing to hold it for). */
  private boolean inLedger;

  /** The {@code cancel} update is writing the request to the ledger. */
  private boolean recording;

  /** This run resumed a cancel an earlier run handled (it was counted and logged there). */
  private boolean resumed;

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

  /**
   * The {@code cancel} update. The request stops the steps at once, then (from {@link
   * VersionMarkers#CANCEL_IN_LEDGER}) is written to the ledger row before the update answers, so
   * that it outlives this run: a run restarted from the row, or any later dispatch claim, reads it.
   */
  String accept(CancelRequest cancel) {
    if (request != null) {
      return "already cancelling (" + request.describe() + "); nothing changed";
    }
    String answer = "cancelling from phase " + operation.phase().wire() + ": " + cancel.describe();
    request = cancel;
    if (work != null) {
      work.cancel(cancel.describe());
    }
    if (VersionMarkers.cancelInLedger()) {
      recording = true;
      try {
        recordInLedger();
      } finally {
        recording = false;
      }
    }
    return answer;
  }

  /**
   * Writes the request being handled to the ledger row, once; a failure leaves it to the
   * bookkeeping ({@link #recordIfNotInLedger}), which tries again before the operation ends.
   */
  private void recordInLedger() {
    try {
      CancelRecord written =
          runDetached(
              () ->
                  ActivityStubs.cancellation("record the cancel request")
                      .requestCancel(operation.operationId(), request));
      // Not registered yet: the dispatch registers it (a cancelled one first), then the
      // bookkeeping writes the request.
      inLedger = written != CancelRecord.NOT_REGISTERED;
    } catch (ActivityFailure failure) {
      OperationLog.workflowLogger()
          .warn(
              "operation {}: the cancel request could not be written to the ledger yet: {}",
              operation.operationId(),
              ActivityFailures.describe(failure));
    }
  }

  /**
   * The bookkeeping's first step: waits for the update's own write, then writes the request if no
   * update did (a Temporal cancel request, or one accepted before the operation was registered).
   */
  void recordIfNotInLedger() {
    if (!VersionMarkers.cancelInLedger()) {
      return;
    }
    Workflow.await(() -> !recording);
    if (!inLedger) {
      recordInLedger();
    }
  }

  /**
   * Takes over a cancel request that the ledger holds but this run did not accept (a run the
   * sweeper restarted, or one a client started again): the steps stop as for one accepted here. A
   * review the run finds is one that may hold a paid render, so the bookkeeping waits for its
   * resolution. Needs no version marker: only code that writes the request to the ledger (from
   * {@link VersionMarkers#CANCEL_IN_LEDGER}) makes an activity report one.
   */
  void adoptFromLedger(CancelRequest ledgerCancel) {
    if (request != null) {
      return;
    }
    request = ledgerCancel;
    inLedger = true;
    if (work != null) {
      work.cancel(ledgerCancel.describe() + " (held in the ledger)");
    }
  }

  /**
   * A run continued as new from a cancelled operation's review wait resumes it: the request the
   * previous run handled, already in the ledger.
   */
  void resume(CancelRequest carried, boolean reviewAfterCancel) {
    request = carried;
    inLedger = true;
    resumed = true;
    reviewOpenedAfterCancel = reviewAfterCancel;
  }

  boolean resumed() {
    return resumed;
  }

  /** The request being handled, or null. */
  CancelRequest request() {
    return request;
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
