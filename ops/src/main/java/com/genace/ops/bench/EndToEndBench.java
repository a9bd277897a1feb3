package com.genace.ops.bench;

import com.genace.db.Database;
import com.genace.testkit.LoopbackPorts;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.GenerationRequest;
import com.genace.workflows.GenerationWorkflow;
import com.genace.workflows.OperationResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * {@code bench e2e}: N operations through the whole workflow against N bare workflows of three
 * no-op activities, on the same Temporal server, each served by a worker process of its own with
 * the same worker options.
 *
 * <ol>
 *   <li>Start the simulator with 0 ms renders and no faults, the worker ({@code genace worker}) and
 *       the bare worker ({@code genace bench bare-worker}); wait until both poll.
 *   <li>Warm up ({@code --warm-up}, by default {@link #warmUpSize}): as many operations as bare
 *       workflows, in the order ours, bare, neither measured nor counted. Every JVM (the Temporal
 *       server's, both workers') has then compiled its hot paths: without it the first batch,
 *       always ours, also paid for the shared server's compiler, and short runs measured mostly
 *       warm-up (a quarter to a third of every process's CPU went to the JIT compiler in
 *       500-operation batches).
 *   <li>Count the statements the idle worker runs by itself for {@value #IDLE_SECONDS} s (its
 *       readiness and statistics loops): that background is subtracted below.
 *   <li>Ours and bare in batches of N/2, in the order ours, bare, bare, ours; each batch runs from
 *       its first start to its last result.
 *   <li>Per operation: POSTs and GETs from the simulator's counters, statements from the database
 *       (less the background), ledger transition rows, and Temporal history events (averaged over a
 *       sample of {@value #HISTORY_SAMPLE} workflows of each kind).
 * </ol>
 */
final class EndToEndBench {

  static final int IDLE_SECONDS = 10;
  static final int MAX_WARM_UP = 200;
  static final int HISTORY_SAMPLE = 20;
  static final String NO_FAULTS =
      """
      {"job_duration_ms": 0, "fail_rate": 0, "latency_ms": 0, "rate_429": 0, "rate_5xx": 0,
       "lose_post_response_next": 0}""";

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
    GenerationClient generations = new GenerationClient(client);
    int statusPort = LoopbackPorts.free();
    progress.accept("starting the worker and the bare worker (one JVM each)");
    try (ScratchHome home = ScratchHome.create(progress);
        Database database = services.open(2);
        WorkerJvm ours =
            WorkerJvm.start(
                workerEnvironment(home, statusPort), home.resolve("worker.log"), "worker");
        WorkerJvm bare =
            WorkerJvm.start(
                workerEnvironment(home, statusPort),
                home.resolve("bare-worker.log"),
                "bench",
                "bare-worker")) {
      ours.awaitHttpOk(URI.create("http://127.0.0.1:" + statusPort + "/readyz"), startTimeout());
      bare.awaitOutput(BareWorker.READY, startTimeout());
      DataSource dataSource = database.dataSource();
      if (warmUpSize > 0) {
        warmUp(generations, client, warmUpSize);
      }
      StatementCounter counter = StatementCounter.open(dataSource);
      progress.accept("counting the idle worker's own statements for " + IDLE_SECONDS + " s");
      long idleStart = counter.read();
      long idleStarted = System.nanoTime();
      Thread.sleep(IDLE_SECONDS * 1000L);
      double background =
          (counter.read() - idleStart) * 1e9 / (System.nanoTime() - idleStarted); // per second

      List<String> ids = new ArrayList<>();
      List<String> bareIds = new ArrayList<>();
      for (int i = 0; i < operations; i++) {
        ids.add(prefix + i);
        bareIds.add("bench-bare/" + prefix + i);
      }
      int half = operations / 2;
      SimulatorControl.Counts simulatorBefore = simulator.counts();
      long statementsBefore = counter.read();
      long windowStarted = System.nanoTime();
      Duration oursElapsed = Duration.ZERO;
      Duration bareElapsed = Duration.ZERO;
      oursElapsed = oursElapsed.plus(ours(generations, client, ids.subList(0, half)));
      bareElapsed = bareElapsed.plus(bare(client, bareIds.subList(0, half)));
      bareElapsed = bareElapsed.plus(bare(client, bareIds.subList(half, operations)));
      oursElapsed = oursElapsed.plus(ours(generations, client, ids.subList(half, operations)));
      long statements = counter.read() - statementsBefore;
      double window = (System.nanoTime() - windowStarted) / 1e9;
      SimulatorControl.Counts calls = simulator.counts().minus(simulatorBefore);

      Double oursRate = Figures.perSecond(operations, oursElapsed);
      Double bareRate = Figures.perSecond(operations, bareElapsed);
      return home.succeeded(
          new BenchReport("e2e")
              .put("operations", operations)
              .put("warm_up", warmUpSize)
              .put("ours_per_s", oursRate)
              .put("bare_per_s", bareRate)
              .put("ratio", Figures.ratio(oursRate, bareRate))
              .put("posts_per_operation", Figures.perOperation(calls.posts(), operations))
              .put("gets_per_operation", Figures.perOperation(calls.gets(), operations))
              .put(
                  "statements_per_operation",
                  Figures.perOperation(Math.max(0, statements - background * window), operations))
              .put(
                  "transitions_per_operation",
                  Figures.perOperation(transitions(dataSource), operations))
              .put("history_events_per_operation", historyEvents(client, sample(ids, true)))
              .put(
                  "bare_history_events_per_operation",
                  historyEvents(client, sample(bareIds, false)))
              .put("delivered", delivered(dataSource))
              .put("statements_source", counter.source())
              .put("background_statements_per_s", Figures.round(background)));
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

  private void warmUp(GenerationClient generations, WorkflowClient client, int size)
      throws InterruptedException {
    progress.accept("warming up: " + size + " of each, not measured");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ids.add(warmUpPrefix + i);
    }
    ours(generations, client, ids);
    bare(client, ids.stream().map(id -> "bench-bare/" + id).toList());
  }

  private Duration ours(GenerationClient generations, WorkflowClient client, List<String> ids)
      throws InterruptedException {
    progress.accept("ours: " + ids.size() + " operations");
    return Batch.run(
        ids,
        id -> generations.start(new GenerationRequest(id, "image-v1", "{\"prompt\":\"bench\"}")),
        id ->
            client
                .newUntypedWorkflowStub(GenerationWorkflow.workflowId(id))
                .getResultAsync(OperationResult.class),
        batchTimeout(ids.size()));
  }

  private Duration bare(WorkflowClient client, List<String> ids) throws InterruptedException {
    progress.accept("bare: " + ids.size() + " workflows");
    return Batch.run(
        ids,
        id ->
            WorkflowClient.start(
                client.newWorkflowStub(
                        BareWorkflow.class,
                        WorkflowOptions.newBuilder()
                            .setWorkflowId(id)
                            .setTaskQueue(BareWorkflow.TASK_QUEUE)
                            .build())
                    ::run,
                id),
        id -> client.newUntypedWorkflowStub(id).getResultAsync(String.class),
        batchTimeout(ids.size()));
  }

  private static List<String> sample(List<String> ids, boolean generation) {
    List<String> picked = new ArrayList<>();
    int step = Math.max(1, ids.size() / HISTORY_SAMPLE);
    for (int i = 0; i < ids.size() && picked.size() < HISTORY_SAMPLE; i += step) {
      picked.add(generation ? GenerationWorkflow.workflowId(ids.get(i)) : ids.get(i));
    }
    return picked;
  }

  private static Double historyEvents(WorkflowClient client, List<String> workflowIds) {
    long events = 0;
    for (String workflowId : workflowIds) {
      events += client.fetchHistory(workflowId).getEvents().size();
    }
    return Figures.perOperation(events, workflowIds.size());
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

  /** Generous: a stalled run should fail with a clear message, not hang. */
  private static Duration batchTimeout(int operations) {
    return Duration.ofSeconds(120 + operations);
  }
}
