package com.genace.worker;

import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.controls.CircuitProbe;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.controls.WorkerControls;
import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.Sql;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.ArtifactStores;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.ledger.LedgerStatistics;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.observation.PollLoop;
import com.genace.client.TaskQueues;
import com.genace.client.connection.PayloadKeys;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.fleet.FleetConfiguration;
import com.genace.worker.health.ActivityCounting;
import com.genace.worker.health.StatusDocument;
import com.genace.worker.health.StatusServer;
import com.genace.worker.health.WorkerMetrics;
import com.genace.worker.health.WorkerState;
import com.genace.worker.telemetry.ActivityLogContext;
import com.genace.worker.telemetry.MicrometerBridge;
import com.genace.worker.telemetry.TemporalTracing;
import com.genace.worker.temporal.PollWatch;
import com.genace.worker.temporal.Saturation;
import com.genace.worker.temporal.TemporalTarget;
import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
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
 * Temporal stubs (with the task-poll watch and the SDK's metrics), a worker per task queue with the
 * production activities, and the HTTP endpoints (bound, not yet serving). Nothing here runs: {@link
 * WorkerProcess} starts, watches and drains it.
 *
 * <p>Each step that opens something records how to close it. When a step throws, what the steps
 * before it opened is closed, the last opened first, and the step's exception propagates (with any
 * failure to close suppressed on it); {@link #close} closes everything the same way.
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
  final PollWatch taskPolls;
  final Saturation saturation;
  final WorkflowServiceStubs stubs;
  final WorkerFactory factory;
  final Worker dispatchWorker;
  final PollLoop pollLoop;

  /** Closes a circuit opened by an authentication refusal once the free model list answers. */
  final CircuitProbe circuitProbe;

  /**
   * The status endpoints, bound to {@code GENACE_STATUS_ADDR}; {@link WorkerProcess} starts them.
   */
  final StatusServer statusServer;

  private final OpenedResources opened = new OpenedResources();

  WorkerStack(WorkerConfig config, TemporalTarget temporal, Clock clock) {
    this.config = config;
    try {
      this.state = new WorkerState(clock, config.maxConcurrentDispatches(), config.configVersion());
      this.metrics = opened.add("metrics", new WorkerMetrics(state, config), WorkerMetrics::close);
      OpenTelemetry openTelemetry = GlobalOpenTelemetry.getOrNoop();
      MicrometerBridge bridge = MicrometerBridge.start(metrics.registry(), openTelemetry);
      opened.add("the OpenTelemetry metrics bridge", bridge, MicrometerBridge::close);
      this.taskPolls = new PollWatch(clock);
      // The SDK's metrics, reported by a thread of their own until the scope is closed.
      Scope sdkMetrics =
          opened.add(
              "the Temporal SDK's metrics scope",
              new RootScopeBuilder()
                  .reporter(new MicrometerClientStatsReporter(metrics.registry()))
                  .reportEvery(com.uber.m3.util.Duration.ofSeconds(10)),
              Scope::close);
      this.stubs =
          opened.add(
              "the Temporal stubs",
              temporal.connect(
                  WorkflowServiceStubsOptions.newBuilder()
                      .setGrpcClientInterceptors(List.of(taskPolls))
                      .setMetricsScope(sdkMetrics)),
              WorkflowServiceStubs::shutdownNow);
      this.saturation =
          new Saturation(
              stubs,
              config.temporalNamespace(),
              List.of(TaskQueues.OPERATIONS),
              List.of(TaskQueues.OPERATIONS, TaskQueues.OBSERVATION, TaskQueues.DISPATCH));
      this.database =
          opened.add(
              "the ledger's connection pool",
              Database.open(DatabaseConfig.of(config.databaseUrl()).withMaxPoolSize(20)),
              Database::close);
      // One runner for every statement: spans, timeouts, and the statement counts in the metrics.
      Sql sql = new Sql(database.dataSource(), openTelemetry, metrics.statementStats());
      this.ledger =
          new OperationsLedger(
              sql, config.leaseDuration(), metrics.ledgerStats(), config.allowance().estimate());
      this.controls = new WorkerControls(sql);
      this.fleet = new FleetConfiguration(sql);
      this.statistics =
          new LedgerStatistics(sql, WorkerProcess.STATISTICS_INTERVAL, config.workerId());
      this.allowance = new DispatchAllowance(sql, config.allowance());
      this.genace = new HttpGenaceClient(config.genaceClientConfig(), openTelemetry);
      this.artifacts =
          opened.add(
              "the artifact store",
              ArtifactStores.open(config.artifacts(), System.getenv(), config.s3Timeouts()),
              ArtifactStore::close);
      WorkflowClient client =
          WorkflowClient.newInstance(
              stubs,
              WorkflowClientOptions.newBuilder()
                  .setNamespace(config.temporalNamespace())
                  .setIdentity(config.workerId())
                  .setInterceptors(TemporalTracing.clientInterceptor(openTelemetry))
                  // Every payload this worker writes is encrypted; one it cannot decrypt fails
                  // its task.
                  .setDataConverter(PayloadKeys.dataConverter(config.temporal().payloadKeys()))
                  .build());
      this.factory =
          opened.add(
              "the Temporal worker factory",
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
                      .build()),
              WorkerFactory::shutdownNow);
      GenerationWorkers.Dependencies deps =
          GenerationWorkers.Dependencies.builder(ledger, genace, artifacts, config.workerId())
              .gate(state)
              .polling(config.polling())
              .clock(clock)
              .listener(state)
              .allowance(allowance)
              .circuit(new DispatchCircuit(controls, config.workerId()))
              .review(config.review())
              .stats(metrics.activityStats())
              .waitLimits(config.waitLimits())
              .sendWindow(config.sendWindow())
              .build();
      this.circuitProbe =
          opened.add(
              "the circuit probe", new CircuitProbe(deps.circuit(), genace), CircuitProbe::close);
      this.pollLoop =
          opened.add(
              "the poll loop",
              GenerationWorkers.operationsWorker(
                      factory,
                      deps,
                      GenerationWorkers.operationsOptions(
                          config.maxConcurrentOperations(), config.taskPollers()),
                      state,
                      state)
                  .pollLoop(),
              PollLoop::close);
      this.dispatchWorker =
          GenerationWorkers.dispatchWorker(
              factory,
              deps,
              WorkerOptions.newBuilder()
                  .setMaxConcurrentActivityExecutionSize(config.maxConcurrentDispatches())
                  .build());
      this.statusServer =
          opened.add(
              "the status endpoints",
              new StatusServer(
                  config.statusAddress(),
                  state,
                  config.statusToken(),
                  () -> StatusDocument.of(config, state, metrics),
                  metrics),
              StatusServer::close);
    } catch (RuntimeException | Error e) {
      opened.closeAfter(e);
      throw e;
    }
  }

  /**
   * Closes everything, the last opened first, each step whatever happened to the one before. The
   * process is stopping: a failure to close is no reason to leave the rest open, nor to fail.
   */
  @Override
  public void close() {
    opened.closeAll();
  }
}
