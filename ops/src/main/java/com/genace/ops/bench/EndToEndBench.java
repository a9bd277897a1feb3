package com.genace.ops.bench;

import com.genace.activities.db.Database;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.testkit.LoopbackPorts;
import com.genace.worker.config.WorkerConfig;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * {@code bench e2e}: N operations through the whole workflow against N naive workflows making the
 * same HTTP calls ({@link NaiveWorkflow}) and N bare workflows of three no-op activities ({@link
 * BareWorkflow}), on the same Temporal server and simulator, each served by a worker process of its
 * own with the same worker options.
 *
 * <ol>
 *   <li>Start the simulator with 0 ms renders and no faults, the worker ({@code genace worker}),
 *       the naive worker ({@code genace bench naive-worker}) and the bare worker ({@code genace
 *       bench bare-worker}); wait until all three poll.
 *   <li>Warm up ({@code --warm-up}, by default {@link #warmUpSize}): as many of each, in the order
 *       ours, bare, naive, neither measured nor counted. Every JVM (the Temporal server's, the
 *       workers') has then compiled its hot paths: without it the first batch, always ours, also
 *       paid for the shared server's compiler, and short runs measured mostly warm-up (a quarter to
 *       a third of every process's CPU went to the JIT compiler in 500-operation batches).
 *   <li>Count the statements the idle worker runs by itself for {@value #IDLE_SECONDS} s (its
 *       readiness and statistics loops): that background is subtracted below.
 *   <li>All three in batches of N/2, in the order ours, bare, naive, naive, bare, ours, so that a
 *       drift during the run weighs on each alike; each batch runs from its first start to its last
 *       result, and the simulator's counters are read around it.
 *   <li>Per operation: POSTs and GETs from the simulator's counters (ours and the naive's apart),
 *       statements from the database (less the background), ledger transition rows, and from a
 *       sample of {@value HistoryFigures#SAMPLE} histories of each kind the Temporal history events
 *       and Temporal Cloud's billable actions ({@link BillableActions}), both also by event type;
 *       and each worker's CPU time over the batches of its own kind.
 * </ol>
 */
final class EndToEndBench {

  static final int IDLE_SECONDS = 10;
  static final int MAX_WARM_UP = 200;
  static final String NO_FAULTS =
      """
      {"job_duration_ms": 0, "fail_rate": 0, "latency_ms": 0, "rate_429": 0, "rate_5xx": 0,
       "lose_post_response_next": 0}""";
  static final String MODEL = "image-v1";
  static final String INPUT = "{\"prompt\":\"bench\"}";

  private final BenchServices services;
  private final Consumer<String> progress;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String prefix = "bench-e2e-" + run + "-";
  private final String warmUpPrefix = "bench-e2e-warm-up-" + run + "-";

  EndToEndBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  BenchReport run(int operations, int warmUpSize) throws Exception {
    SimulatorControl simulator = services.simulator();
    simulator.setFaults(NO_FAULTS);
    WorkflowClient client = services.temporal().workflowClient();
    int statusPort = LoopbackPorts.free();
    progress.accept("starting the worker, the naive worker and the bare worker (one JVM each)");
    try (ScratchHome home = ScratchHome.create(progress);
        Database database = services.open(2);
        WorkerJvm oursWorker =
            WorkerJvm.start(
                workerEnvironment(home, statusPort), home.resolve("worker.log"), "worker");
        WorkerJvm naiveWorker =
            WorkerJvm.start(
                workerEnvironment(home, statusPort),
                home.resolve("naive-worker.log"),
                "bench",
                "naive-worker");
        WorkerJvm bareWorker =
            WorkerJvm.start(
                workerEnvironment(home, statusPort),
                home.resolve("bare-worker.log"),
                "bench",
                "bare-worker")) {
      oursWorker.awaitHttpOk(
          URI.create("http://127.0.0.1:" + statusPort + "/readyz"), startTimeout());
      naiveWorker.awaitOutput(NaiveWorker.READY, startTimeout());
      bareWorker.awaitOutput(BareWorker.READY, startTimeout());
      Contender ours = ours(client, oursWorker);
      Contender naive =
          naive(client, naiveWorker, WorkerConfig.pollMaxDelay(services.workerEnvironment()));
      Contender bare = bare(client, bareWorker);
      DataSource dataSource = database.dataSource();
      if (warmUpSize > 0) {
        progress.accept("warming up: " + warmUpSize + " of each, not measured");
        List<String> warmUpIds = ids(warmUpPrefix, warmUpSize);
        for (Contender contender : List.of(ours, bare, naive)) {
          batch(contender, warmUpIds, simulator);
        }
      }
      StatementCounter counter = StatementCounter.open(dataSource);
      progress.accept("counting the idle worker's own statements for " + IDLE_SECONDS + " s");
      long idleStart = counter.read();
      long idleStarted = System.nanoTime();
      Thread.sleep(IDLE_SECONDS * 1000L);
      double background =
          (counter.read() - idleStart) * 1e9 / (System.nanoTime() - idleStarted); // per second

      List<String> ids = ids(prefix, operations);
      List<List<String>> halves =
          List.of(ids.subList(0, operations / 2), ids.subList(operations / 2, operations));
      Map<Contender, Batch.Run> runs = new HashMap<>();
      Map<Contender, Integer> batchesRun = new HashMap<>();
      long statementsBefore = counter.read();
      long windowStarted = System.nanoTime();
      for (Contender contender : List.of(ours, bare, naive, naive, bare, ours)) {
        int half = batchesRun.merge(contender, 1, Integer::sum) - 1;
        runs.merge(contender, batch(contender, halves.get(half), simulator), Batch.Run::plus);
      }
      long statements = counter.read() - statementsBefore;
      double window = (System.nanoTime() - windowStarted) / 1e9;

      Batch.Run oursRun = runs.get(ours);
      Batch.Run naiveRun = runs.get(naive);
      progress.accept("reading " + HistoryFigures.SAMPLE + " histories of each kind");
      HistoryFigures oursHistories = HistoryFigures.of(client, ours.workflowIds(ids));
      HistoryFigures naiveHistories = HistoryFigures.of(client, naive.workflowIds(ids));
      HistoryFigures bareHistories = HistoryFigures.of(client, bare.workflowIds(ids));
      Map<String, Map<String, Double>> actionsByType = new LinkedHashMap<>();
      actionsByType.put("ours", oursHistories.actionsByType());
      actionsByType.put("naive", naiveHistories.actionsByType());
      actionsByType.put("bare", bareHistories.actionsByType());
      Map<String, Map<String, Double>> eventsByType = new LinkedHashMap<>();
      eventsByType.put("ours", oursHistories.eventsByType());
      eventsByType.put("naive", naiveHistories.eventsByType());
      eventsByType.put("bare", bareHistories.eventsByType());
      return home.succeeded(
          new BenchReport("e2e")
              .put("operations", operations)
              .put("warm_up", warmUpSize)
              .put("ours_per_s", oursRun.perSecond())
              .put("naive_per_s", naiveRun.perSecond())
              .put("bare_per_s", runs.get(bare).perSecond())
              .put("ratio", Figures.ratio(oursRun.perSecond(), runs.get(bare).perSecond()))
              .put("ratio_naive", Figures.ratio(oursRun.perSecond(), naiveRun.perSecond()))
              .put("posts_per_operation", Figures.perOperation(oursRun.calls().posts(), operations))
              .put("gets_per_operation", Figures.perOperation(oursRun.calls().gets(), operations))
              .put(
                  "naive_posts_per_operation",
                  Figures.perOperation(naiveRun.calls().posts(), operations))
              .put(
                  "naive_gets_per_operation",
                  Figures.perOperation(naiveRun.calls().gets(), operations))
              .put(
                  "statements_per_operation",
                  Figures.perOperation(Math.max(0, statements - background * window), operations))
              .put(
                  "transitions_per_operation",
                  Figures.perOperation(transitions(dataSource), operations))
              .put("actions_per_operation", oursHistories.actionsPerWorkflow())
              .put("naive_actions_per_operation", naiveHistories.actionsPerWorkflow())
              .put("bare_actions_per_operation", bareHistories.actionsPerWorkflow())
              .put("history_events_per_operation", oursHistories.eventsPerWorkflow())
              .put("naive_history_events_per_operation", naiveHistories.eventsPerWorkflow())
              .put("bare_history_events_per_operation", bareHistories.eventsPerWorkflow())
              .put("delivered", delivered(dataSource))
              .put("statements_source", counter.source())
              .put("background_statements_per_s", Figures.round(background))
              .put("worker_cpu_ms_per_operation", oursRun.workerCpuMillisPerWorkflow())
              .put("naive_worker_cpu_ms_per_operation", naiveRun.workerCpuMillisPerWorkflow())
              .put("bare_worker_cpu_ms_per_operation", runs.get(bare).workerCpuMillisPerWorkflow())
              .put("actions_by_type", actionsByType)
              .put("history_events_by_type", eventsByType));
    }
  }

  /** The worker's (and the bare worker's) environment: the services', its home and port. */
  private Map<String, String> workerEnvironment(ScratchHome home, int statusPort) {
    return WorkerJvm.environment(services.workerEnvironment(), home, statusPort);
  }

  /** The default warm-up: as many as a measured batch, up to {@value #MAX_WARM_UP}. */
  static int warmUpSize(int operations) {
    return Math.min(MAX_WARM_UP, Math.max(1, operations / 2));
  }

  private Batch.Run batch(Contender contender, List<String> ids, SimulatorControl simulator)
      throws InterruptedException {
    progress.accept(contender.name() + ": " + ids.size() + " workflows");
    return contender.run(ids, simulator);
  }

  private static List<String> ids(String prefix, int size) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ids.add(prefix + i);
    }
    return ids;
  }

  /** The whole workflow, started as an application does. */
  static Contender ours(WorkflowClient client, WorkerJvm worker) {
    GenerationClient generations = new GenerationClient(client);
    return new Contender(
        "ours",
        worker,
        GenerationWorkflow::workflowId,
        id -> generations.start(new GenerationRequest(id, MODEL, INPUT)),
        id ->
            client
                .newUntypedWorkflowStub(GenerationWorkflow.workflowId(id))
                .getResultAsync(OperationResult.class));
  }

  /** The same request through the naive workflow; its operation id is its workflow id. */
  private static Contender naive(WorkflowClient client, WorkerJvm worker, Duration pollMaxDelay) {
    UnaryOperator<String> workflowId = id -> "bench-naive/" + id;
    return new Contender(
        "naive",
        worker,
        workflowId,
        id ->
            WorkflowClient.start(
                client.newWorkflowStub(
                        NaiveWorkflow.class,
                        options(workflowId.apply(id), NaiveWorkflow.TASK_QUEUE))
                    ::run,
                new NaiveWorkflow.Request(
                    workflowId.apply(id), MODEL, INPUT, pollMaxDelay.toSeconds())),
        id -> client.newUntypedWorkflowStub(workflowId.apply(id)).getResultAsync(Integer.class));
  }

  private static Contender bare(WorkflowClient client, WorkerJvm worker) {
    UnaryOperator<String> workflowId = id -> "bench-bare/" + id;
    return new Contender(
        "bare",
        worker,
        workflowId,
        id ->
            WorkflowClient.start(
                client.newWorkflowStub(
                        BareWorkflow.class, options(workflowId.apply(id), BareWorkflow.TASK_QUEUE))
                    ::run,
                id),
        id -> client.newUntypedWorkflowStub(workflowId.apply(id)).getResultAsync(String.class));
  }

  private static WorkflowOptions options(String workflowId, String taskQueue) {
    return WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(taskQueue).build();
  }

  private long transitions(DataSource dataSource) throws SQLException {
    return count(
        dataSource, "SELECT count(*) FROM app_generation_transitions WHERE operation_id LIKE ?");
  }

  private long delivered(DataSource dataSource) throws SQLException {
    return count(
        dataSource,
        "SELECT count(*) FROM app_generation_operations WHERE operation_id LIKE ?"
            + " AND phase = 'delivered'");
  }

  private long count(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, prefix + "%");
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static Duration startTimeout() {
    return Duration.ofSeconds(120);
  }
}
