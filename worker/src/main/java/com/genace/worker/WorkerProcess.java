package com.genace.worker;

import com.genace.allowance.DispatchAllowance;
import com.genace.client.GenaceAuthenticationException;
import com.genace.client.GenaceClient;
import com.genace.client.GenaceClientConfig;
import com.genace.client.HttpGenaceClient;
import com.genace.controls.WorkerControls;
import com.genace.db.Database;
import com.genace.db.DatabaseConfig;
import com.genace.delivery.ArtifactStore;
import com.genace.delivery.ArtifactStores;
import com.genace.ledger.Lease;
import com.genace.ledger.LedgerStatistics;
import com.genace.ledger.OperationsLedger;
import com.genace.ledger.WriteResult;
import com.genace.observation.PollingPolicy;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.health.ActivityCounting;
import com.genace.worker.health.Readiness;
import com.genace.worker.health.StatusDocument;
import com.genace.worker.health.StatusServer;
import com.genace.worker.health.WorkerMetrics;
import com.genace.worker.health.WorkerState;
import com.genace.worker.telemetry.ActivityLogContext;
import com.genace.worker.telemetry.MicrometerBridge;
import com.genace.worker.telemetry.TemporalTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker process: a Temporal worker per task queue (dispatch; operations), the status
 * endpoints, and the loops that keep readiness true to the facts.
 *
 * <ol>
 *   <li>Startup: the status endpoints come up first; then the ledger schema, Temporal and Genace
 *       (the free model list, bounded) are checked until they answer; then polling starts.
 *   <li>Every second: the ledger is checked (reading the fleet-wide pause) and dispatch polling is
 *       suspended or resumed to match readiness.
 *   <li>Drain: stop claiming dispatch; let in-flight POSTs finish until the deadline, then put the
 *       ones still in flight in review (never back to dispatchable); stop the other activities,
 *       which release their leases so another worker takes over at once.
 * </ol>
 *
 * <p>Traces, HTTP and SQL spans and the OTLP copy of the metrics go to the global OpenTelemetry (a
 * no-op unless {@link com.genace.worker.telemetry.Telemetry#install} ran first).
 */
public final class WorkerProcess implements AutoCloseable {

  static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);
  static final Duration STATISTICS_INTERVAL = Duration.ofSeconds(10);
  static final PollingPolicy POLLING = PollingPolicy.DEFAULT;

  private static final Logger log = LoggerFactory.getLogger(WorkerProcess.class);

  private final WorkerConfig config;
  private final Clock clock;
  private final WorkerState state;
  private final WorkerMetrics metrics;
  private final Database database;
  private final OperationsLedger ledger;
  private final WorkerControls controls;
  private final LedgerStatistics statistics;
  private final DispatchAllowance allowance;
  private volatile DispatchAllowance.Usage allowanceUsage;
  private final GenaceClient genace;
  private final ArtifactStore artifacts;
  private final WorkflowServiceStubs stubs;
  private final WorkerFactory factory;
  private final Worker dispatchWorker;
  private final StatusServer statusServer;
  private final MicrometerBridge metricsBridge;
  private final ScheduledExecutorService loops =
      Executors.newScheduledThreadPool(
          2,
          runnable -> {
            Thread thread = new Thread(runnable, "genace-worker-loop");
            thread.setDaemon(true);
            return thread;
          });

  /**
   * @param connect opens the Temporal connection, reporting the SDK's metrics to the registry
   */
  public WorkerProcess(
      WorkerConfig config, Function<MeterRegistry, WorkflowServiceStubs> connect, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.state = new WorkerState(clock, config.maxConcurrentDispatches());
    this.metrics = new WorkerMetrics(state);
    OpenTelemetry openTelemetry = GlobalOpenTelemetry.getOrNoop();
    this.metricsBridge = MicrometerBridge.start(metrics.registry(), openTelemetry);
    this.stubs = connect.apply(metrics.registry());
    this.database = Database.open(DatabaseConfig.of(config.databaseUrl()).withMaxPoolSize(20));
    this.ledger = new OperationsLedger(database.dataSource(), config.leaseDuration());
    this.controls = new WorkerControls(database.dataSource());
    this.statistics = new LedgerStatistics(database.dataSource());
    this.allowance = new DispatchAllowance(database.dataSource(), config.allowance());
    this.genace =
        new HttpGenaceClient(
            GenaceClientConfig.of(config.genaceBaseUrl(), config.genaceApiKey())
                .withTimeouts(
                    GenaceClientConfig.DEFAULT_CONNECT_TIMEOUT, config.genaceReadTimeout()),
            openTelemetry);
    this.artifacts = ArtifactStores.open(config.artifacts(), System.getenv());
    WorkflowClient client =
        WorkflowClient.newInstance(
            stubs,
            WorkflowClientOptions.newBuilder()
                .setNamespace(config.temporalNamespace())
                .setIdentity(config.workerId())
                .setInterceptors(TemporalTracing.clientInterceptor(openTelemetry))
                .build());
    this.factory =
        WorkerFactory.newInstance(
            client,
            WorkerFactoryOptions.newBuilder()
                // The last is outermost: the log context runs inside the activity's span.
                .setWorkerInterceptors(
                    new ActivityCounting(state, metrics.registry()),
                    new ActivityLogContext(),
                    TemporalTracing.workerInterceptor(openTelemetry))
                .build());
    GenerationWorkers.Dependencies deps =
        new GenerationWorkers.Dependencies(
            ledger, genace, artifacts, config.workerId(), state, POLLING, clock, state, allowance);
    GenerationWorkers.operationsWorker(
        factory,
        deps,
        WorkerOptions.newBuilder()
            .setMaxConcurrentActivityExecutionSize(config.maxConcurrentOperations())
            .build());
    this.dispatchWorker =
        GenerationWorkers.dispatchWorker(
            factory,
            deps,
            WorkerOptions.newBuilder()
                .setMaxConcurrentActivityExecutionSize(config.maxConcurrentDispatches())
                .build());
    this.statusServer =
        new StatusServer(
            config.statusAddress(),
            state,
            config.statusToken(),
            () -> StatusDocument.of(config, state, metrics.latest(), allowanceUsage),
            metrics);
  }

  public WorkerState state() {
    return state;
  }

  public WorkerMetrics metrics() {
    return metrics;
  }

  /** Whether the dispatch queue's poller is suspended (not just reported unready). */
  public boolean dispatchPollingSuspended() {
    return dispatchWorker.isSuspended();
  }

  public StatusServer statusServer() {
    return statusServer;
  }

  /**
   * Serves the endpoints, waits until the startup checks pass (retrying every two seconds), then
   * starts polling. Returns once the worker is running.
   */
  public void start() throws InterruptedException {
    statusServer.start();
    log.info("worker {} status endpoints on {}", config.workerId(), statusServer.address());
    while (true) {
      String problem = startupProblem();
      if (problem == null) {
        break;
      }
      state.startupProblem(problem);
      log.warn("worker {} not started yet: {}", config.workerId(), problem);
      Thread.sleep(2000);
    }
    checkLedger();
    dispatchWorker.suspendPolling(); // the readiness loop resumes it when dispatch is allowed
    factory.start();
    state.startupProblem(null);
    loops.scheduleWithFixedDelay(
        this::refreshReadiness, 0, CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    loops.scheduleWithFixedDelay(
        this::refreshStatistics, 0, STATISTICS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    log.info("worker {} started: {}", config.workerId(), config);
  }

  /** Null when everything answers; otherwise the first problem, without secrets. */
  private String startupProblem() {
    try {
      ledger.list(java.util.Optional.empty(), 1);
    } catch (RuntimeException e) {
      String message = String.valueOf(e.getMessage());
      return message.contains("app_generation_operations") && message.contains("does not exist")
          ? "schema_missing: run ./genace db migrate"
          : "ledger_unavailable: " + message;
    }
    try {
      stubs.getServerCapabilities();
    } catch (RuntimeException e) {
      return "temporal_unavailable: " + e.getMessage();
    }
    try {
      genace.listModels();
    } catch (GenaceAuthenticationException e) {
      return "genace_authentication_failed: check GENACE_API_KEY";
    } catch (RuntimeException e) {
      return "genace_unavailable: " + e.getMessage();
    }
    return config
        .artifacts()
        .problem(artifacts)
        .map(problem -> "artifact_store_unavailable: " + problem)
        .orElse(null);
  }

  private void refreshReadiness() {
    try {
      checkLedger();
      Readiness readiness = state.readiness();
      if (readiness.acceptingDispatch() && dispatchWorker.isSuspended()) {
        dispatchWorker.resumePolling();
        log.info("dispatch polling resumed");
      } else if (!readiness.acceptingDispatch() && !dispatchWorker.isSuspended()) {
        // A poll already waiting on the server may still bring one task: the dispatch gate
        // (WorkerState.closedReason) stops its POST.
        dispatchWorker.suspendPolling();
        log.info("dispatch polling suspended: {}", readiness.reason());
      }
    } catch (RuntimeException e) {
      log.warn("readiness refresh failed: {}", e.getMessage());
    }
  }

  /** Reads the fleet pause and the allowance's use: proof enough that the ledger answers. */
  private void checkLedger() {
    try {
      state.ledgerChecked(true, null, controls.dispatchPause());
      allowanceUsage = allowance.usage();
    } catch (RuntimeException e) {
      state.ledgerChecked(false, e.getMessage(), java.util.Optional.empty());
    }
  }

  private void refreshStatistics() {
    try {
      metrics.update(statistics.read());
    } catch (RuntimeException e) {
      log.warn("could not read ledger statistics: {}", e.getMessage());
    }
  }

  /**
   * Drains within {@code config.drainTimeout()}: no new dispatch, in-flight POSTs finish or go to
   * review, other activities stop and release their leases. Never makes an unknown outcome
   * dispatchable again.
   */
  public void drain() {
    Instant deadline = clock.instant().plus(config.drainTimeout());
    log.info("worker {} draining (deadline {})", config.workerId(), deadline);
    state.startDraining();
    dispatchWorker.suspendPolling();
    while (!state.postsInFlight().isEmpty() && clock.instant().isBefore(deadline)) {
      sleepQuietly(Duration.ofMillis(100));
    }
    for (Lease lease : state.postsInFlight()) {
      persistReview(lease);
    }
    factory.shutdown();
    Duration left = Duration.between(clock.instant(), deadline);
    if (!left.isNegative()) {
      factory.awaitTermination(left.toMillis(), TimeUnit.MILLISECONDS);
    }
    if (!factory.isTerminated()) {
      // Running observations are interrupted; they release their leases on the way out.
      factory.shutdownNow();
      factory.awaitTermination(5, TimeUnit.SECONDS);
    }
    log.info("worker {} drained", config.workerId());
  }

  /** A POST still in flight at the deadline: its outcome is unknown, so it goes to review. */
  private void persistReview(Lease lease) {
    try {
      WriteResult result =
          ledger.openReview(
              lease,
              "drained_during_post",
              "worker " + config.workerId() + " shut down while the POST was in flight");
      log.warn(
          "operation {} put in review while draining ({}): its POST was in flight",
          lease.operationId(),
          result);
    } catch (RuntimeException e) {
      // The lease stays on 'submitting': whoever claims next sends it to review all the same.
      log.error(
          "could not record the review of {} while draining: {}",
          lease.operationId(),
          e.getMessage());
    }
  }

  private static void sleepQuietly(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    loops.shutdownNow();
    factory.shutdownNow();
    statusServer.close();
    metricsBridge.close();
    database.close();
    artifacts.close();
    metrics.close();
  }
}
