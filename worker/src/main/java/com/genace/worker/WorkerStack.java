package com.genace.worker;

import com.genace.allowance.DispatchAllowance;
import com.genace.client.GenaceClient;
import com.genace.client.HttpGenaceClient;
import com.genace.controls.CircuitProbe;
import com.genace.controls.DispatchCircuit;
import com.genace.controls.WorkerControls;
import com.genace.db.Database;
import com.genace.db.DatabaseConfig;
import com.genace.db.Sql;
import com.genace.delivery.ArtifactStore;
import com.genace.delivery.ArtifactStores;
import com.genace.ledger.LedgerStatistics;
import com.genace.ledger.OperationsLedger;
import com.genace.observation.PollLoop;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.fleet.FleetConfiguration;
import com.genace.worker.health.ActivityCounting;
import com.genace.worker.health.WorkerMetrics;
import com.genace.worker.health.WorkerState;
import com.genace.worker.telemetry.ActivityLogContext;
import com.genace.worker.telemetry.MicrometerBridge;
import com.genace.worker.telemetry.TemporalTracing;
import com.genace.worker.temporal.PollWatch;
import com.genace.worker.temporal.Saturation;
import com.genace.worker.temporal.TemporalTarget;
import com.genace.workflows.TaskQueues;
import com.uber.m3.tally.RootScopeBuilder;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;
import java.util.List;

/**
 * The one place that wires a worker: the ledger's pool and its readers, the Genace client, the
 * Temporal stubs (with the task-poll watch and the SDK's metrics), and a worker per task queue with
 * the production activities. Nothing here runs: {@link WorkerProcess} starts, watches and drains
 * it.
 */
final class WorkerStack implements AutoCloseable {

  final WorkerConfig config;
  final WorkerState state;
  final WorkerMetrics metrics;
  final Database database;
  final OperationsLedger ledger;
  final WorkerControls controls;
  final FleetConfiguration fleet;
  final LedgerStatistics statistics;
  final DispatchAllowance allowance;
  final GenaceClient genace;
  final ArtifactStore artifacts;
  final PollWatch polls;
  final Saturation saturation;
  final WorkflowServiceStubs stubs;
  final WorkerFactory factory;
  final Worker dispatchWorker;
  final PollLoop pollLoop;

  /** Closes a circuit opened by an authentication refusal once the free model list answers. */
  final CircuitProbe circuitProbe;

  private final MicrometerBridge metricsBridge;

  WorkerStack(WorkerConfig config, TemporalTarget temporal, Clock clock) {
    this.config = config;
    this.state = new WorkerState(clock, config.maxConcurrentDispatches(), config.configVersion());
    this.metrics = new WorkerMetrics(state, config);
    OpenTelemetry openTelemetry = GlobalOpenTelemetry.getOrNoop();
    this.metricsBridge = MicrometerBridge.start(metrics.registry(), openTelemetry);
    this.polls = new PollWatch(clock);
    this.stubs =
        temporal.connect(
            WorkflowServiceStubsOptions.newBuilder()
                .setGrpcClientInterceptors(List.of(polls))
                .setMetricsScope(
                    new RootScopeBuilder()
                        .reporter(new MicrometerClientStatsReporter(metrics.registry()))
                        .reportEvery(com.uber.m3.util.Duration.ofSeconds(10))));
    this.saturation =
        new Saturation(
            stubs,
            config.temporalNamespace(),
            List.of(TaskQueues.OPERATIONS),
            List.of(TaskQueues.OPERATIONS, TaskQueues.OBSERVATION, TaskQueues.DISPATCH));
    this.database = Database.open(DatabaseConfig.of(config.databaseUrl()).withMaxPoolSize(20));
    // One runner for every statement: spans, timeouts, and the statement counts in the metrics.
    Sql sql = new Sql(database.dataSource(), openTelemetry, metrics.statementStats());
    this.ledger = new OperationsLedger(sql, config.leaseDuration(), metrics.ledgerStats());
    this.controls = new WorkerControls(sql);
    this.fleet = new FleetConfiguration(sql);
    this.statistics =
        new LedgerStatistics(sql, WorkerProcess.STATISTICS_INTERVAL, config.workerId());
    this.allowance = new DispatchAllowance(sql, config.allowance());
    this.genace = new HttpGenaceClient(config.genaceClientConfig(), openTelemetry);
    this.artifacts = ArtifactStores.open(config.artifacts(), System.getenv(), config.s3Timeouts());
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
                .setWorkflowCacheSize(config.workflowCacheSize())
                .setMaxWorkflowThreadCount(config.workflowCacheSize())
                // The last is outermost: the log context runs inside the activity's span.
                .setWorkerInterceptors(
                    new ActivityCounting(state, metrics.registry()),
                    new ActivityLogContext(),
                    TemporalTracing.workerInterceptor(openTelemetry))
                .build());
    GenerationWorkers.Dependencies deps =
        new GenerationWorkers.Dependencies(
            ledger,
            genace,
            artifacts,
            config.workerId(),
            state,
            config.polling(),
            clock,
            state,
            allowance,
            new DispatchCircuit(controls, config.workerId()),
            config.review(),
            metrics.activityStats(),
            config.waitLimits());
    this.circuitProbe = new CircuitProbe(deps.circuit(), genace);
    this.pollLoop =
        GenerationWorkers.operationsWorker(
                factory,
                deps,
                GenerationWorkers.operationsOptions(
                    config.maxConcurrentOperations(), config.taskPollers()),
                state,
                state)
            .pollLoop();
    this.dispatchWorker =
        GenerationWorkers.dispatchWorker(
            factory,
            deps,
            WorkerOptions.newBuilder()
                .setMaxConcurrentActivityExecutionSize(config.maxConcurrentDispatches())
                .build());
  }

  /** Closes everything, each step whatever happened to the one before. */
  @Override
  public void close() {
    List<Runnable> steps =
        List.of(
            circuitProbe::close,
            factory::shutdownNow,
            stubs::shutdownNow,
            metricsBridge::close,
            database::close,
            artifacts::close,
            metrics::close);
    for (Runnable step : steps) {
      try {
        step.run();
      } catch (RuntimeException e) {
        // The process is stopping: what is left must still be closed.
      }
    }
  }
}
