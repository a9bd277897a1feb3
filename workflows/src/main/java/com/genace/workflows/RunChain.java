package com.genace.workflows;

import com.genace.client.CarriedState;
import com.genace.client.GenerationRequest;
import com.genace.client.Step;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.function.BooleanSupplier;

/**
 * Continues the operation as a new run from one of its waits once this run's history is long
 * ({@link HistoryBudget}), so that an operation may wait for months. Only where nothing is in
 * flight: between dispatch attempts (the last one provably sent nothing) and while a review waits,
 * never while an update or signal handler runs. A cancelled operation waits only in the review its
 * cancel's bookkeeping waits for (a POST that may have left); from {@link
 * VersionMarkers#BOUNDED_WAITS} it continues from there too, carrying the cancel request (which the
 * ledger also holds), where 0.1.0 never continued once a cancel was requested. The next run gets
 * the same request and what {@link OperationState#carry} hands over, registers nothing, and resumes
 * the wait; its workflow id is the same, so describe, signals, updates and results reach it.
 *
 * <p>The waits for an activity (observation, delivery) continue too from {@link
 * VersionMarkers#BOUNDED_ACTIVITY_WAITS} ({@link #awaitOrContinue}): their history grows only with
 * what arrives meanwhile (refused signals, queries do not count), but a flood of those would
 * otherwise grow one run to Temporal's limit.
 */
final class RunChain {

  private final OperationState operation;
  private final Cancellation cancellation;

  private GenerationRequest request;
  private int runsBefore;

  /** {@link VersionMarkers#BOUNDED_WAITS}: a cancelled operation's review wait continues too. */
  private boolean boundedWaits;

  RunChain(OperationState operation, Cancellation cancellation) {
    this.operation = operation;
    this.cancellation = cancellation;
  }

  /**
   * @param carried what the previous run handed over; null in an operation's first run
   */
  void begin(GenerationRequest started, CarriedState carried) {
    request = started;
    runsBefore = carried == null ? 0 : carried.runs();
    boundedWaits = VersionMarkers.boundedWaits();
  }

  /** Whether the review reminder's due time is carried across runs. */
  boolean carriesReminders() {
    return boundedWaits;
  }

  /** Whether this run would continue as new at a wait now: its history is long, and it may. */
  boolean due() {
    return (boundedWaits || !cancellation.requested()) && HistoryBudget.spent();
  }

  /**
   * At a wait: continues as new if this run's history is long, or returns.
   *
   * @param idle whether the wait still has nothing to do (no resolution arrived meanwhile)
   */
  void continueIfDue(Step resumeAt, int notSentInARow, int waitsInARow, BooleanSupplier idle) {
    continueIfDue(resumeAt, notSentInARow, waitsInARow, 0, idle);
  }

  /**
   * @param nextReminderAtMillis when the review's next reminder is due; 0 outside a review
   */
  void continueIfDue(
      Step resumeAt,
      int notSentInARow,
      int waitsInARow,
      long nextReminderAtMillis,
      BooleanSupplier idle) {
    if (!due()) {
      return;
    }
    // A handler still running (an update answering its caller, a cancel being written to the
    // ledger) must end before the run does.
    Workflow.await(Workflow::isEveryHandlerFinished);
    if (cancellation.requested() && !(boundedWaits && resumeAt == Step.REVIEW)) {
      // Being cancelled: only the review the bookkeeping waits in continues (a dispatch wait
      // ends with the cancel anyway).
      return;
    }
    if (!idle.getAsBoolean()) {
      return;
    }
    continueAsNew(resumeAt, notSentInARow, waitsInARow, nextReminderAtMillis);
  }

  /**
   * Waits for an activity that does the step's work ({@code working}, started by the caller) and
   * returns its result; if this run's history grows long first (signals arriving meanwhile),
   * continues as new instead, resuming at {@code resumeAt}: the next run starts the activity again.
   * The activity left behind ends with this run: Temporal drops it, an observation's poll loop
   * completes the next run's activity instead ({@code WaitingActivities}), and a delivery's lease
   * fences the attempt left behind from the next run's.
   *
   * <p>Asks {@link VersionMarkers#BOUNDED_ACTIVITY_WAITS} only once the history is long, so that
   * other histories carry no marker; 0.1.0 ({@link Workflow#DEFAULT_VERSION}) waited on.
   */
  <T> T awaitOrContinue(Step resumeAt, Promise<T> working) {
    // Detached: Workflow.await throws once the scope is cancelled, where waiting for the activity
    // must not (a delivery under way finishes; a cancelled observation completes its promise).
    Workflow.newDetachedCancellationScope(
            () -> Workflow.await(() -> working.isCompleted() || HistoryBudget.spent()))
        .run();
    if (working.isCompleted() || !mayContinueFrom(resumeAt)) {
      return working.get();
    }
    if (!VersionMarkers.boundedActivityWaits()) {
      return working.get();
    }
    Workflow.newDetachedCancellationScope(() -> Workflow.await(Workflow::isEveryHandlerFinished))
        .run();
    if (working.isCompleted()) {
      return working.get();
    }
    continueAsNew(resumeAt, 0, 0, 0);
    throw new IllegalStateException("unreachable: continueAsNew does not return");
  }

  /**
   * A cancelled operation is still observed only in its bookkeeping, when the request asked for the
   * render to be delivered, which a continued run resumes; its delivery under way runs to its end
   * in this run (a continued run could not tell it was under way when the cancel came).
   */
  private boolean mayContinueFrom(Step resumeAt) {
    return !cancellation.requested() || resumeAt == Step.OBSERVE;
  }

  private void continueAsNew(
      Step resumeAt, int notSentInARow, int waitsInARow, long nextReminderAtMillis) {
    OperationLog.workflowLogger()
        .info(
            "operation {} continues as new after {} history events (run {})",
            operation.operationId(),
            Workflow.getInfo().getHistoryLength(),
            runsBefore + 2);
    Workflow.continueAsNew(
        request,
        operation.carry(
            resumeAt,
            notSentInARow,
            waitsInARow,
            runsBefore + 1,
            cancellation.request(),
            nextReminderAtMillis));
  }
}
