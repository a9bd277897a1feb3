package com.genace.ops.bench;

import com.genace.activities.db.Database;
import com.genace.activities.observation.PollingPolicy;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.testkit.LoopbackPorts;
import com.genace.worker.config.WorkerConfig;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * {@code bench scale}: N operations observing renders that outlast the run, on one worker process
 * with its default settings.
 *
 * <ol>
 *   <li>Renders take {@value #RENDER_HOURS} hours; start the worker ({@code genace worker}, its own
 *       JVM) and probe its {@code /readyz} every {@value ReadyzSampler#INTERVAL_MS} ms from now on.
 *   <li>Start N operations; wait until all are {@code observing} in the ledger, until that count
 *       has not grown for {@value #STALL_SECONDS} s (the worker holds no more), or {@link
 *       #rampLimit} at most.
 *   <li>Wait until the last to start polls at the policy's slowest pace, then count the simulator's
 *       GETs for the measured window. Expected: one GET per observing operation per {@link
 *       PollingPolicy#maxDelay} (the jitter averages out).
 *   <li>Then the worker's live heap (after a full GC, through jcmd), RSS and threads (from /proc).
 * </ol>
 */
final class ScaleBench {

  static final int RENDER_HOURS = 6;
  static final int STALL_SECONDS = 20;

  private final BenchServices services;
  private final Consumer<String> progress;

  /** The worker's polling policy: it runs with the bench's own {@code GENACE_POLL_MAX_SECONDS}. */
  private final PollingPolicy polling =
      PollingPolicy.DEFAULT.withMaxDelay(WorkerConfig.pollMaxDelay(System.getenv()));

  private final String prefix = "bench-scale-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  ScaleBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  BenchReport run(int operations, Duration measured) throws Exception {
    SimulatorControl simulator = services.simulator();
    simulator.setFaults(
        EndToEndBench.NO_FAULTS.replace(
            "\"job_duration_ms\": 0", "\"job_duration_ms\": " + RENDER_HOURS * 3_600_000));
    WorkflowClient client = services.temporal().workflowClient();
    GenerationClient generations = new GenerationClient(client);
    int statusPort = LoopbackPorts.free();
    URI readyz = URI.create("http://127.0.0.1:" + statusPort + "/readyz");
    progress.accept("starting the worker (its own JVM, default settings)");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < operations; i++) {
      ids.add(prefix + i);
    }
    try (ScratchHome home = ScratchHome.create(progress);
        Database database = services.open(2);
        WorkerJvm worker =
            WorkerJvm.start(
                WorkerJvm.environment(services.workerEnvironment(), home, statusPort),
                home.resolve("worker.log"),
                "worker")) {
      worker.awaitHttpOk(readyz, Duration.ofSeconds(120));
      try (ReadyzSampler probes = new ReadyzSampler(readyz)) {
        progress.accept("starting " + operations + " operations");
        Batch.startAll(
            ids,
            id ->
                generations.start(new GenerationRequest(id, "image-v1", "{\"prompt\":\"bench\"}")));
        long observing = awaitObserving(database.dataSource(), operations);
        Duration settle = timeToSlowestPace(polling);
        progress.accept(
            observing
                + " observing; waiting "
                + settle.toSeconds()
                + " s until the last polls every "
                + polling.maxDelay().toSeconds()
                + " s");
        Thread.sleep(settle.toMillis());
        progress.accept("counting GETs for " + measured.toSeconds() + " s");
        long gets = simulator.counts().gets();
        long started = System.nanoTime();
        Thread.sleep(measured.toMillis());
        gets = simulator.counts().gets() - gets;
        Duration window = Duration.ofNanos(System.nanoTime() - started);
        observing = observing(database.dataSource());
        long overdue = pollsOverdue(database.dataSource());
        progress.accept("reading the worker's heap, RSS and threads");
        Long heap = worker.liveHeapBytes();
        Double getsPerSecond = Figures.perSecond(gets, window);
        return home.succeeded(
            new BenchReport("scale")
                .put("operations", operations)
                .put("observing", observing)
                .put("heap_used_mb", Figures.mebibytes(heap))
                .put("rss_mb", Figures.mebibytes(worker.rssBytes()))
                .put("threads", worker.threads())
                .put("gets_per_s", getsPerSecond)
                .put("expected_gets_per_s", expectedGetsPerSecond(observing, polling))
                .put("polls_overdue", overdue)
                .put("readyz_p99_ms", probes.p99())
                .put("readyz_samples", probes.samples())
                .put("readyz_not_ready", probes.notReady())
                .put("measured_s", Figures.round(window.toMillis() / 1000.0)));
      }
    } finally {
      if (services.externalTemporal()) {
        terminate(client, ids);
      }
    }
  }

  /** At the slowest pace, each observing operation polls once per max delay on average. */
  static Double expectedGetsPerSecond(long observing, PollingPolicy policy) {
    return Figures.perSecond(observing, policy.maxDelay());
  }

  /** How long an observation that just started takes to reach the policy's slowest pace. */
  static Duration timeToSlowestPace(PollingPolicy policy) {
    Duration total = Duration.ZERO;
    for (Duration delay = policy.initialDelay();
        delay.compareTo(policy.maxDelay()) < 0;
        delay = policy.next(delay)) {
      total = total.plus(delay);
    }
    // The jitter can stretch every delay so far; one slowest delay more covers the last poll.
    return Duration.ofMillis(Math.round(total.toMillis() * (1 + policy.jitter())))
        .plus(policy.maxDelay());
  }

  /** How long the bench waits for operations to reach observation: generous, but bounded. */
  static Duration rampLimit(int operations) {
    return Duration.ofSeconds(60).plusMillis(60L * operations);
  }

  /** Waits until every operation observes, the count stops growing, or the ramp limit. */
  private long awaitObserving(DataSource dataSource, int operations) throws Exception {
    long best = -1;
    long grewAt = System.nanoTime();
    long limit = System.nanoTime() + rampLimit(operations).toNanos();
    while (true) {
      long observing = observing(dataSource);
      if (observing > best) {
        best = observing;
        grewAt = System.nanoTime();
      }
      progress.accept(observing + "/" + operations + " observing");
      if (observing >= operations
          || System.nanoTime() - grewAt > Duration.ofSeconds(STALL_SECONDS).toNanos()
          || System.nanoTime() > limit) {
        return observing;
      }
      Thread.sleep(2000);
    }
  }

  private long observing(DataSource dataSource) throws SQLException {
    return countOwn(dataSource, "phase = 'observing'");
  }

  /** The poll schedule's backlog at the end: status polls due 5 s ago or more, unclaimed. */
  private long pollsOverdue(DataSource dataSource) throws SQLException {
    return countOwn(dataSource, "poll_due_at < clock_timestamp() - interval '5 seconds'");
  }

  /** How many of this bench's operations meet {@code condition} (a constant SQL predicate). */
  private long countOwn(DataSource dataSource, String condition) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM app_generation_operations WHERE operation_id LIKE ? AND "
                    + condition)) {
      statement.setString(1, prefix + "%");
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** On a real Temporal, the bench's operations must not observe for hours after it ends. */
  private void terminate(WorkflowClient client, List<String> ids) {
    progress.accept("terminating the bench's " + ids.size() + " workflows");
    for (String id : ids) {
      try {
        client
            .newUntypedWorkflowStub(GenerationWorkflow.workflowId(id))
            .terminate("bench scale is over");
      } catch (RuntimeException e) {
        // Not started, or already over.
      }
    }
  }
}
