package com.genace.workflows;

import io.temporal.workflow.Workflow;
import java.util.function.BooleanSupplier;

/**
 * Continues the operation as a new run from one of its waits once this run's history is long
 * ({@link HistoryBudget}), so that an operation may wait for months. Only where nothing is in
 * flight: between dispatch attempts (the last one provably sent nothing) and while a review waits,
 * never while a cancel request is handled or an update or signal handler runs. The next run gets
 * the same request and what {@link OperationState#carry} hands over, registers nothing, and resumes
 * the wait; its workflow id is the same, so describe, signals, updates and results reach it.
 */
final class RunChain {

  private final OperationState operation;
  private final Cancellation cancellation;

  private GenerationRequest request;
  private int runsBefore;

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
  }

  /** Whether this run would continue as new at a wait now: its history is long, and it may. */
  boolean due() {
    return !cancellation.requested() && HistoryBudget.spent();
  }

  /**
   * At a wait: continues as new if this run's history is long, or returns.
   *
   * @param idle whether the wait still has nothing to do (no resolution arrived meanwhile)
   */
  void continueIfDue(Step resumeAt, int notSentInARow, int waitsInARow, BooleanSupplier idle) {
    if (!due()) {
      return;
    }
    // A handler still running (an update answering its caller) must end before the run does.
    Workflow.await(Workflow::isEveryHandlerFinished);
    if (cancellation.requested() || !idle.getAsBoolean()) {
      return;
    }
    OperationLog.workflowLogger()
        .info(
            "operation {} continues as new after {} history events (run {})",
            operation.operationId(),
            Workflow.getInfo().getHistoryLength(),
            runsBefore + 2);
    Workflow.continueAsNew(
        request, operation.carry(resumeAt, notSentInARow, waitsInARow, runsBefore + 1));
  }
}
