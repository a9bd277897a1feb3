package com.genace.worker;

import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.DeliveryActivitiesImpl;
import com.genace.activities.dispatch.DispatchActivitiesImpl;
import com.genace.activities.dispatch.DispatchGate;
import com.genace.activities.dispatch.DispatchListener;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.lifecycle.CancelActivitiesImpl;
import com.genace.activities.lifecycle.OrphanListener;
import com.genace.activities.lifecycle.RetentionActivitiesImpl;
import com.genace.activities.lifecycle.RetentionListener;
import com.genace.activities.lifecycle.SweepActivitiesImpl;
import com.genace.activities.observation.GenaceStatusPoll;
import com.genace.activities.observation.ObservationActivitiesImpl;
import com.genace.activities.observation.PollLoop;
import com.genace.activities.observation.PollingPolicy;
import com.genace.activities.observation.StatusPoll;
import com.genace.activities.observation.WaitingActivities;
import com.genace.activities.recovery.OperationHistory;
import com.genace.activities.recovery.TemporalHistory;
import com.genace.activities.registration.RegistrationActivitiesImpl;
import com.genace.activities.review.ApprovalCheck;
import com.genace.activities.review.EvidenceActivitiesImpl;
import com.genace.activities.review.ReviewActivitiesImpl;
import com.genace.activities.review.ReviewSettings;
import com.genace.activities.stats.ActivityStats;
import com.genace.client.TaskQueues;
import com.genace.workflows.GenerationWorkflowImpl;
import com.genace.workflows.lifecycle.RetentionWorkflowImpl;
import com.genace.workflows.lifecycle.SweepWorkflowImpl;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;

/** The one place that says which implementation runs on which task queue. */
public final class GenerationWorkers {

  /**
   * What the activities need, shared by both queues' workers. Built with {@link #builder}, which
   * names each part and fills in the defaults of a tool or test.
   *
   * @param stats where the activities count what they did (the worker's metrics registry)
   * @param waitLimits how long observing and delivering may last before an ERROR line says so
   * @param sendWindow how long after its claim a POST may leave: it must match {@code genace}'s
   *     read timeout
   */
  public record Dependencies(
      OperationsLedger ledger,
      GenaceClient genace,
      ArtifactStore store,
      String workerId,
      DispatchGate gate,
      PollingPolicy polling,
      Clock clock,
      DispatchListener listener,
      SpendingAllowance allowance,
      DispatchCircuit circuit,
      ReviewSettings review,
      ActivityStats stats,
      WaitLimits waitLimits,
      SendWindow sendWindow) {

    /**
     * The dependencies on {@code ledger}, {@code genace} and {@code store} of the worker {@code
     * workerId}; until set otherwise, the defaults of a tool or test: the dispatch gate open, the
     * default polling, the system clock, no dispatch listener, allowance, circuit or counts (a
     * refusal of the account then leaves the operation pending without pausing anything), the
     * default review settings, wait limits and send window.
     */
    public static Builder builder(
        OperationsLedger ledger, GenaceClient genace, ArtifactStore store, String workerId) {
      return new Builder(ledger, genace, store, workerId);
    }

    /** Sets the parts of {@link Dependencies} one by one; the last value set wins. */
    public static final class Builder {
      private final OperationsLedger ledger;
      private final GenaceClient genace;
      private final ArtifactStore store;
      private String workerId;
      private DispatchGate gate = DispatchGate.OPEN;
      private PollingPolicy polling = PollingPolicy.DEFAULT;
      private Clock clock = Clock.systemUTC();
      private DispatchListener listener = DispatchListener.NONE;
      private SpendingAllowance allowance = SpendingAllowance.UNLIMITED;
      private DispatchCircuit circuit = DispatchCircuit.NONE;
      private ReviewSettings review = ReviewSettings.DEFAULT;
      private ActivityStats stats = ActivityStats.NONE;
      private WaitLimits waitLimits = WaitLimits.DEFAULT;
      private SendWindow sendWindow = SendWindow.DEFAULT;

      private Builder(
          OperationsLedger ledger, GenaceClient genace, ArtifactStore store, String workerId) {
        this.ledger = ledger;
        this.genace = genace;
        this.store = store;
        this.workerId = workerId;
      }

      public Builder workerId(String value) {
        this.workerId = value;
        return this;
      }

      public Builder gate(DispatchGate value) {
        this.gate = value;
        return this;
      }

      public Builder polling(PollingPolicy value) {
        this.polling = value;
        return this;
      }

      public Builder clock(Clock value) {
        this.clock = value;
        return this;
      }

      public Builder listener(DispatchListener value) {
        this.listener = value;
        return this;
      }

      public Builder allowance(SpendingAllowance value) {
        this.allowance = value;
        return this;
      }

      public Builder circuit(DispatchCircuit value) {
        this.circuit = value;
        return this;
      }

      public Builder review(ReviewSettings value) {
        this.review = value;
        return this;
      }

      public Builder stats(ActivityStats value) {
        this.stats = value;
        return this;
      }

      public Builder waitLimits(WaitLimits value) {
        this.waitLimits = value;
        return this;
      }

      public Builder sendWindow(SendWindow value) {
        this.sendWindow = value;
        return this;
      }

      public Dependencies build() {
        return new Dependencies(
            ledger,
            genace,
            store,
            workerId,
            gate,
            polling,
            clock,
            listener,
            allowance,
            circuit,
            review,
            stats,
            waitLimits,
            sendWindow);
      }
    }
  }

  /**
   * Status polls run at once by a worker's poll loop (its poll threads). A poll is a GET and a
   * statement of a few milliseconds, so 16 threads can serve the pace of 10,000 renders (about 670
   * polls a second at the default 15 s); on 2 shared cores the CPU gives out first
   * (docs/performance.md).
   */
  static final int POLL_THREADS = 16;

  private GenerationWorkers() {}

  /**
   * The {@code genace-operations} worker and the poll loop of the {@code genace-observation}
   * worker, which a draining worker closes ({@link PollLoop#close}) so that its claims are handed
   * back before it exits.
   */
  public record OperationsWorkers(Worker operations, PollLoop pollLoop) {}

  /**
   * Workflows, ledger steps and delivery on {@code genace-operations}, and observation on {@code
   * genace-observation} (a second worker with the same options, so that observation's activities
   * never take the slots of registration, review or delivery): all keep running while dispatch
   * pauses.
   */
  public static OperationsWorkers operationsWorker(
      WorkerFactory factory, Dependencies deps, WorkerOptions options) {
    return operationsWorker(factory, deps, options, OrphanListener.NONE);
  }

  /**
   * {@link #operationsWorker(WorkerFactory, Dependencies, WorkerOptions)} with the orphan sweeper's
   * workflow and step, which tell {@code orphans} of each orphan found.
   */
  public static OperationsWorkers operationsWorker(
      WorkerFactory factory, Dependencies deps, WorkerOptions options, OrphanListener orphans) {
    return operationsWorker(factory, deps, options, orphans, RetentionListener.NONE);
  }

  /**
   * The operations worker with the fleet's periodic work: the orphan sweeper's and the ledger
   * retention's workflows and steps, which tell {@code orphans} and {@code retention} what they
   * did.
   */
  public static OperationsWorkers operationsWorker(
      WorkerFactory factory,
      Dependencies deps,
      WorkerOptions options,
      OrphanListener orphans,
      RetentionListener retention) {
    Worker worker = factory.newWorker(TaskQueues.OPERATIONS, options);
    worker.registerWorkflowImplementationTypes(
        GenerationWorkflowImpl.class, SweepWorkflowImpl.class, RetentionWorkflowImpl.class);
    registerOperationsActivities(worker, deps, new TemporalHistory(factory.getWorkflowClient()));
    worker.registerActivitiesImplementations(
        new SweepActivitiesImpl(
            deps.ledger(), factory.getWorkflowClient(), deps.store(), deps.workerId(), orphans),
        new RetentionActivitiesImpl(
            deps.ledger().retention(), factory.getWorkflowClient(), retention));
    return new OperationsWorkers(worker, observationWorker(factory, deps, options));
  }

  /**
   * The freely retried activities of {@code genace-operations} alone, for a worker that runs no
   * workflow code: registration and review, evidence, cancellation and delivery; {@code history}
   * reads what Temporal holds for an operation before a review decision that would POST again.
   */
  public static void registerOperationsActivities(
      Worker worker, Dependencies deps, OperationHistory history) {
    worker.registerActivitiesImplementations(
        new RegistrationActivitiesImpl(deps.ledger()),
        new ReviewActivitiesImpl(
            deps.ledger(),
            history,
            deps.workerId(),
            deps.stats(),
            new ApprovalCheck(
                deps.ledger(), deps.clock(), deps.review().twoPersonCredits(), deps.stats())),
        new CancelActivitiesImpl(deps.ledger(), deps.workerId()),
        new EvidenceActivitiesImpl(deps.ledger(), deps.genace(), deps.review(), deps.stats()),
        new DeliveryActivitiesImpl(
            deps.ledger(),
            deps.genace(),
            deps.store(),
            deps.workerId(),
            deps.clock(),
            deps.waitLimits()));
  }

  /**
   * The options of the workers that carry the load (the operations queue with the workflows, and
   * observation); {@code bench e2e}'s bare baseline runs with the same.
   */
  public static WorkerOptions operationsOptions(int maxConcurrentActivities, int taskPollers) {
    return WorkerOptions.newBuilder()
        .setMaxConcurrentActivityExecutionSize(maxConcurrentActivities)
        .setMaxConcurrentWorkflowTaskPollers(taskPollers)
        .setMaxConcurrentActivityTaskPollers(taskPollers)
        .build();
  }

  /**
   * Observation on its own queue: the activity that waits for a poll loop's answer, and this
   * worker's {@link PollLoop}, which claims from the ledger once {@code factory} has started and
   * stops when it shuts down.
   *
   * @return the poll loop, started
   */
  public static PollLoop observationWorker(
      WorkerFactory factory, Dependencies deps, WorkerOptions options) {
    Worker worker = factory.newWorker(TaskQueues.OBSERVATION, options);
    StatusPoll statusPoll =
        new GenaceStatusPoll(
            deps.ledger(),
            deps.genace(),
            deps.workerId(),
            deps.polling(),
            deps.clock(),
            deps.stats());
    worker.registerActivitiesImplementations(
        new ObservationActivitiesImpl(deps.ledger(), statusPoll));
    return new PollLoop(
            deps.ledger(),
            statusPoll,
            new WaitingActivities(factory.getWorkflowClient()),
            deps.polling(),
            factory::isStarted,
            () -> factory.isShutdown() || factory.isTerminated(),
            POLL_THREADS,
            deps.waitLimits(),
            deps.clock(),
            deps.stats())
        .start();
  }

  /** The paid POST, on its own queue so that its task polls can stop alone. */
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
            deps.allowance(),
            deps.circuit(),
            deps.stats(),
            deps.sendWindow()));
    return worker;
  }
}
