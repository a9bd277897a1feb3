package com.genace.workflows;

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
