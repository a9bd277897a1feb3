package com.genace.worker;

import com.genace.activities.controls.CircuitProbe;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.health.StatusServer;
import com.genace.worker.health.WorkerMetrics;
import com.genace.worker.health.WorkerState;
import com.genace.worker.lifecycle.LedgerRetentionSchedule;
import com.genace.worker.lifecycle.OrphanSweepSchedule;
import com.genace.worker.temporal.FairnessWeights;
import com.genace.worker.temporal.TemporalTarget;
import com.genace.workflows.lifecycle.RetentionRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker process's lifecycle, over the {@link WorkerStack} that wires it.
 *
 * <ol>
 *   <li>Startup: the status endpoints come up first; then Temporal (with the namespace and the
 *       search attributes), the ledger and its schema, Genace (the free model list) and the
 *       artifact store are checked until they answer, with a backoff ({@link StartupWait}), the
 *       worker not ready meanwhile with the reason; what waiting will not fix (refused credentials,
 *       a missing namespace, search attribute or database) stops it ({@link StartupFailure}); then
 *       the task polls start.
 *   <li>Every second, the {@link ReadinessLoop}; every ten, the {@link StatisticsLoop}.
 *   <li>On shutdown, the {@link Drain}.
 * </ol>
 *
 * <p>Traces, HTTP and SQL spans and the OTLP copy of the metrics go to the global OpenTelemetry (a
 * no-op unless {@link com.genace.worker.telemetry.Telemetry#install} ran first).
 */
public final class WorkerProcess implements AutoCloseable {

  static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);
  static final Duration STATISTICS_INTERVAL = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(WorkerProcess.class);

  private final WorkerConfig config;
  private final Clock clock;
  private final TemporalTarget temporal;
  private final WorkerStack stack;
  private final ReadinessLoop readiness;
  private final ScheduledExecutorService loops =
      Executors.newScheduledThreadPool(
          2,
          runnable -> {
            Thread thread = new Thread(runnable, "genace-worker-loop");
            thread.setDaemon(true);
            return thread;
          });

  public WorkerProcess(WorkerConfig config, TemporalTarget temporal, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.temporal = temporal;
    this.stack = new WorkerStack(config, temporal, clock);
    this.readiness = new ReadinessLoop(stack);
  }

  public WorkerState state() {
    return stack.state;
  }

  public WorkerMetrics metrics() {
    return stack.metrics;
  }

  /** Whether the dispatch queue's poller is suspended (not just reported unready). */
  public boolean dispatchPollingSuspended() {
    return stack.dispatchWorker.isSuspended();
  }

  public StatusServer statusServer() {
    return stack.statusServer;
  }

  /**
   * Serves the endpoints, waits until the startup checks pass (Temporal first, then the rest), then
   * starts the task polls. Returns once the worker is running.
   *
   * @throws StartupFailure when a check fails in a way that waiting will not fix
   */
  public void start() throws InterruptedException {
    stack.statusServer.start();
    log.info("worker {} status endpoints on {}", config.workerId(), stack.statusServer.address());
    StartupChecks checks = new StartupChecks(stack, temporal.address());
    stack.state.startupProblem("checking Temporal at " + temporal.address());
    StartupWait wait = new StartupWait(clock);
    boolean temporalAnswered = false;
    while (true) {
      String problem = checks.temporalProblem();
      temporalAnswered |= problem == null;
      if (temporalAnswered) {
        problem = checks.problem();
      }
      if (problem == null) {
        break;
      }
      stack.state.startupProblem(problem);
      if (wait.shouldLog(problem)) {
        log.warn(
            "worker {} not started yet: {} (waiting since {}; retried every {} s at most)",
            config.workerId(),
            problem,
            wait.since(),
            StartupWait.MAX_PAUSE.toSeconds());
      }
      Thread.sleep(wait.nextPause().toMillis());
    }
    readiness.checkLedger();
    stack.factory.start();
    // The readiness loop resumes it when dispatch is allowed. Suspended only now: the SDK creates a
    // worker's poller when its factory starts, and forgets a suspension asked before. A task poll
    // sent in between may still bring one task: the dispatch gate turns it away.
    stack.dispatchWorker.suspendPolling();
    scheduleOrphanSweeps();
    scheduleRetention();
    applyFairnessWeights();
    stack.state.startupProblem(null);
    loops.scheduleWithFixedDelay(readiness, 0, CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    stack.circuitProbe.start(CircuitProbe.INTERVAL);
    loops.scheduleWithFixedDelay(
        new StatisticsLoop(stack), 0, STATISTICS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    log.info("worker {} started: {}", config.workerId(), config);
  }

  /**
   * Creates or updates the sweeper's Temporal Schedule. A server without schedules (the Java test
   * server behind {@code ./genace dev} or {@code demo}) is no reason not to work: said on /status.
   */
  private void scheduleOrphanSweeps() {
    try {
      String done =
          OrphanSweepSchedule.ensure(stack.factory.getWorkflowClient(), config.sweepInterval());
      stack.state.sweepSchedule(done + ", every " + config.sweepInterval().toSeconds() + " s");
      log.info("orphan sweeper schedule {} (every {})", done, config.sweepInterval());
    } catch (RuntimeException e) {
      stack.state.sweepSchedule("not scheduled: " + e.getMessage());
      log.warn("orphan sweeper not scheduled: {}", e.getMessage());
    }
  }

  /**
   * Writes the ledger's fairness weights to Temporal's task queues (they may have been set while
   * Temporal was away, or Temporal restored without them). Work goes on without: a server that
   * refuses task-queue configuration orders every account alike, said on /status.
   */
  private void applyFairnessWeights() {
    try {
      int accounts =
          new FairnessWeights(stack.stubs, config.temporalNamespace(), config.workerId())
              .apply(stack.ledger.accounts().list());
      stack.state.fairnessWeights("applied: " + accounts + " account(s) with settings");
      log.info("fairness weights of {} account(s) applied to Temporal's task queues", accounts);
    } catch (RuntimeException e) {
      stack.state.fairnessWeights("not applied: " + e.getMessage());
      log.warn("fairness weights not applied to Temporal's task queues: {}", e.getMessage());
    }
  }

  /** Creates or updates the ledger retention's Temporal Schedule, as for the sweeper's. */
  private void scheduleRetention() {
    RetentionRequest request =
        new RetentionRequest(config.ledgerRetentionDays(), config.allowance().window().toSeconds());
    try {
      String done = LedgerRetentionSchedule.ensure(stack.factory.getWorkflowClient(), request);
      stack.state.retentionSchedule(
          done + ", every " + LedgerRetentionSchedule.INTERVAL.toSeconds() + " s");
      log.info(
          "ledger retention schedule {} ({} days, every {})",
          done,
          request.retentionDays(),
          LedgerRetentionSchedule.INTERVAL);
    } catch (RuntimeException e) {
      stack.state.retentionSchedule("not scheduled: " + e.getMessage());
      log.warn("ledger retention not scheduled: {}", e.getMessage());
    }
  }

  /**
   * Drains within {@code config.drainTimeout()}: no new dispatch, in-flight POSTs finish or go to
   * review, other activities stop and release their leases. Never makes an unknown outcome
   * dispatchable again.
   */
  public void drain() {
    new Drain(stack, clock).run();
  }

  @Override
  public void close() {
    loops.shutdownNow();
    stack.close();
  }
}
