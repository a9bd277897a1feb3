package com.genace.worker;

import com.genace.allowance.SpendingAllowance;
import com.genace.client.GenaceClient;
import com.genace.delivery.ArtifactStore;
import com.genace.delivery.DeliveryActivitiesImpl;
import com.genace.dispatch.DispatchActivitiesImpl;
import com.genace.dispatch.DispatchGate;
import com.genace.dispatch.DispatchListener;
import com.genace.ledger.OperationsLedger;
import com.genace.observation.ObservationActivitiesImpl;
import com.genace.observation.PollingPolicy;
import com.genace.review.ReviewActivitiesImpl;
import com.genace.workflows.GenerationWorkflowImpl;
import com.genace.workflows.TaskQueues;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;

/** The one place that says which implementation runs on which task queue. */
public final class GenerationWorkers {

  /** What the activities need, shared by both queues' workers. */
  public record Dependencies(
      OperationsLedger ledger,
      GenaceClient genace,
      ArtifactStore store,
      String workerId,
      DispatchGate gate,
      PollingPolicy polling,
      Clock clock,
      DispatchListener listener,
      SpendingAllowance allowance) {

    /** Without a dispatch listener or allowance: for tools and tests that do not need them. */
    public Dependencies(
        OperationsLedger ledger,
        GenaceClient genace,
        ArtifactStore store,
        String workerId,
        DispatchGate gate,
        PollingPolicy polling,
        Clock clock) {
      this(
          ledger,
          genace,
          store,
          workerId,
          gate,
          polling,
          clock,
          DispatchListener.NONE,
          SpendingAllowance.UNLIMITED);
    }
  }

  private GenerationWorkers() {}

  /** Workflows, ledger steps, observation and delivery: keeps running while dispatch pauses. */
  public static Worker operationsWorker(
      WorkerFactory factory, Dependencies deps, WorkerOptions options) {
    Worker worker = factory.newWorker(TaskQueues.OPERATIONS, options);
    worker.registerWorkflowImplementationTypes(GenerationWorkflowImpl.class);
    registerOperationsActivities(worker, deps);
    return worker;
  }

  /** The freely retried activities alone, for a worker that runs no workflow code. */
  public static void registerOperationsActivities(Worker worker, Dependencies deps) {
    worker.registerActivitiesImplementations(
        new ReviewActivitiesImpl(deps.ledger(), deps.workerId()),
        new ObservationActivitiesImpl(
            deps.ledger(), deps.genace(), deps.workerId(), deps.polling(), deps.clock()),
        new DeliveryActivitiesImpl(
            deps.ledger(), deps.genace(), deps.store(), deps.workerId(), deps.clock()));
  }

  /** The paid POST, on its own queue so that it can stop polling alone. */
  public static Worker dispatchWorker(
      WorkerFactory factory, Dependencies deps, WorkerOptions options) {
    Worker worker = factory.newWorker(TaskQueues.DISPATCH, options);
    worker.registerActivitiesImplementations(
        new DispatchActivitiesImpl(
            deps.ledger(),
            deps.genace(),
            deps.workerId(),
            deps.gate(),
            deps.listener(),
            deps.allowance()));
    return worker;
  }
}
