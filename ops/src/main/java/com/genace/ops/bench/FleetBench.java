package com.genace.ops.bench;

import com.genace.activities.db.Database;
import com.genace.testkit.LoopbackPorts;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * {@code bench fleet}: N worker processes against one PostgreSQL, one Temporal server and the
 * simulator answering after {@value #LATENCY_MS} ms with {@value #RENDER_MS} ms renders; for each
 * fleet size, without an allowance and with one (a fleet-wide credit limit that never binds, so
 * every dispatch reserves).
 *
 * <ol>
 *   <li>For each allowance setting, start the largest fleet (one JVM each, {@code GENACE_WORKER_ID}
 *       and the connections' {@code application_name} {@value #WORKER_PREFIX}i), wait until every
 *       worker is ready, and warm it up with operations that are not measured.
 *   <li>Then the sizes from the largest down, stopping the workers beyond each size: every measured
 *       fleet is warm.
 *   <li>Each run: the idle fleet's statements for {@value #IDLE_SECONDS} s (its readiness and
 *       statistics loops, subtracted below); then M operations started from {@value Batch#STARTERS}
 *       threads, from the first start to the last result, while {@link LockWaitSampler} samples the
 *       lock waits; then the statements per operation (in all, and by name), the POSTs, each
 *       worker's share of the dispatches (the {@code submitting} transitions by owner) and the
 *       fleet's CPU.
 * </ol>
 */
final class FleetBench {

  static final String WORKER_PREFIX = "bench-fleet-";
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
  static final int LATENCY_MS = 50;
  static final int RENDER_MS = 1000;
  static final String LATENCY =
      """
      {"job_duration_ms": %d, "fail_rate": 0, "latency_ms": %d, "rate_429": 0, "rate_5xx": 0,
       "lose_post_response_next": 0}"""
          .formatted(RENDER_MS, LATENCY_MS);

  /** A fleet-wide limit that never binds: every dispatch reserves, none is refused. */
  static final Map<String, String> ALLOWANCE =
      Map.of(
          "GENACE_ALLOWANCE_CREDITS", "1000000000",
          "GENACE_ALLOWANCE_WINDOW_SECONDS", "3600");

  static final int IDLE_SECONDS = 5;
  static final int MAX_WARM_UP = 100;
  static final int TOP_STATEMENTS = 12;

  private final BenchServices services;
  private final Consumer<String> progress;
  private final String prefix = "bench-fleet-" + UUID.randomUUID().toString().substring(0, 8) + "-";
  private final StatementNames names = StatementNames.load();

  FleetBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  /** The default warm-up of a fleet: a third of a run, at most {@value #MAX_WARM_UP}. */
  static int warmUpSize(int operations) {
    return Math.min(MAX_WARM_UP, Math.max(1, operations / 3));
  }

  BenchReport run(List<Integer> sizes, List<Boolean> allowances, int operations, int warmUp)
      throws Exception {
    services.simulator().setFaults(LATENCY);
    WorkflowClient client = services.temporal().workflowClient();
    Contender ours = EndToEndBench.ours(client, null);
    List<Integer> descending = sizes.stream().distinct().sorted(Comparator.reverseOrder()).toList();
    List<Map<String, Object>> runs = new ArrayList<>();
    try (ScratchHome home = ScratchHome.create(progress);
        Database database = services.open(2);
        Database sampling = services.open(1)) {
      StatementCounter counter = StatementCounter.open(database.dataSource());
      for (boolean allowance : allowances) {
        List<WorkerJvm> fleet = startFleet(home, descending.get(0), allowance);
        try {
          if (warmUp > 0) {
            String label = label(descending.get(0), allowance) + "-warm-up";
            progress.accept("warming up: " + warmUp + " operations, not measured");
            try {
              Batch.run(ids(label, warmUp), ours.start(), ours.result(), timeout(warmUp));
            } catch (IllegalStateException stuck) {
              progress.accept("warm-up: " + stuck.getMessage() + "; going on");
            }
          }
          for (int size : descending) {
            while (fleet.size() > size) {
              fleet.remove(fleet.size() - 1).close();
            }
            runs.add(
                measure(
                    new Run(size, allowance, operations),
                    fleet,
                    ours,
                    counter,
                    database.dataSource(),
                    sampling.dataSource()));
          }
        } finally {
          fleet.forEach(WorkerJvm::close);
        }
      }
      runs.sort(
          Comparator.comparing((Map<String, Object> r) -> (Boolean) r.get("allowance"))
              .thenComparing(r -> (Integer) r.get("workers")));
      return home.succeeded(
          new BenchReport("fleet")
              .put("operations", operations)
              .put("warm_up", warmUp)
              .put("latency_ms", LATENCY_MS)
              .put("render_ms", RENDER_MS)
              .put("statements_source", counter.source())
              .put("lock_waits_across_workers", acrossWorkers(runs))
              .put("share_max_min_ratio", worstShareRatio(runs))
              .put("runs", runs));
    }
  }

  record Run(int workers, boolean allowance, int operations) {}

  private List<WorkerJvm> startFleet(ScratchHome home, int size, boolean allowance)
      throws InterruptedException {
    progress.accept(
        "starting "
            + size
            + " workers (one JVM each), "
            + (allowance ? "with" : "without")
            + " an allowance");
    List<WorkerJvm> fleet = new ArrayList<>();
    List<URI> readiness = new ArrayList<>();
    try {
      for (int i = 1; i <= size; i++) {
        int statusPort = LoopbackPorts.free();
        String name = WORKER_PREFIX + i;
        fleet.add(
            WorkerJvm.start(
                workerEnvironment(home, statusPort, name, allowance),
                home.resolve(name + (allowance ? "-allowance" : "") + ".log"),
                "worker"));
        readiness.add(URI.create("http://127.0.0.1:" + statusPort + "/readyz"));
      }
      for (int i = 0; i < size; i++) {
        fleet.get(i).awaitHttpOk(readiness.get(i), Duration.ofSeconds(180));
      }
      return fleet;
    } catch (InterruptedException | RuntimeException e) {
      fleet.forEach(WorkerJvm::close);
      throw e;
    }
  }

  /**
   * A worker's environment: the services', its own id, its connections named after it (so that a
   * lock wait tells which worker waits on which), and the allowance or none.
   */
  private Map<String, String> workerEnvironment(
      ScratchHome home, int statusPort, String name, boolean allowance) {
    Map<String, String> env = WorkerJvm.environment(services.workerEnvironment(), home, statusPort);
    env.put("GENACE_WORKER_ID", name);
    env.put("DATABASE_URL", withApplicationName(env.get("DATABASE_URL"), name));
    env.keySet().removeIf(variable -> variable.startsWith("GENACE_ALLOWANCE_"));
    if (allowance) {
      env.putAll(ALLOWANCE);
    }
    return env;
  }

  /** {@code url} with {@code application_name} (libpq's spelling, or the JDBC driver's). */
  static String withApplicationName(String url, String name) {
    String parameter = url.startsWith("jdbc:") ? "ApplicationName" : "application_name";
    return url + (url.contains("?") ? "&" : "?") + parameter + "=" + name;
  }

  private Map<String, Object> measure(
      Run run,
      List<WorkerJvm> fleet,
      Contender ours,
      StatementCounter counter,
      DataSource dataSource,
      DataSource sampling)
      throws Exception {
    String label = label(run.workers(), run.allowance());
    progress.accept(label + ": counting the idle fleet's statements for " + IDLE_SECONDS + " s");
    long idleFrom = counter.read();
    long idleStarted = System.nanoTime();
    Thread.sleep(IDLE_SECONDS * 1000L);
    double background = (counter.read() - idleFrom) / ((System.nanoTime() - idleStarted) / 1e9);

    List<String> ids = ids(label, run.operations());
    progress.accept(label + ": " + run.operations() + " operations");
    Map<String, Long> byNameBefore = counter.byName(names);
    long statementsBefore = counter.read();
    SimulatorControl.Counts callsBefore = services.simulator().counts();
    Duration cpuBefore = cpu(fleet);
    Duration elapsed;
    Map<String, Object> lockWaits;
    Map<String, Object> latencies;
    try (LockWaitSampler sampler = new LockWaitSampler(sampling, WORKER_PREFIX, names).start()) {
      // Each operation's start and end, from the batch's first start, in seconds.
      Map<String, Double> starts = new java.util.concurrent.ConcurrentHashMap<>();
      Map<String, Double> ends = new java.util.concurrent.ConcurrentHashMap<>();
      long first = System.nanoTime();
      long unfinished = 0;
      try {
        elapsed =
            Batch.run(
                ids,
                id -> {
                  starts.put(id, (System.nanoTime() - first) / 1e9);
                  ours.start().accept(id);
                },
                id ->
                    ours.result()
                        .apply(id)
                        .whenComplete(
                            (result, failure) -> ends.put(id, (System.nanoTime() - first) / 1e9)),
                timeout(ids.size()));
      } catch (IllegalStateException stuck) {
        // Reported, not fatal: under load an activity's report to the server can be lost, and an
        // operation then waits for that activity's timeout, which can outlast any bench.
        elapsed = Duration.ofNanos(System.nanoTime() - first);
        unfinished = ids.size() - ends.size();
        progress.accept(label + ": " + stuck.getMessage() + "; reported as unfinished");
      }
      latencies = latencies(starts, ends);
      latencies.put("unfinished", unfinished);
      sampler.close();
      lockWaits = sampler.figures();
    }
    long statements = counter.read() - statementsBefore;
    Map<String, Long> byName = minus(counter.byName(names), byNameBefore);
    SimulatorControl.Counts calls = services.simulator().counts().minus(callsBefore);
    Duration cpu = cpu(fleet).minus(cpuBefore);
    double seconds = elapsed.toNanos() / 1e9;
    double ownStatements = Math.max(0, statements - background * seconds);

    Map<String, Long> dispatched = dispatchesByWorker(dataSource, label, run.workers());
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("workers", run.workers());
    figures.put("allowance", run.allowance());
    figures.put("operations", run.operations());
    figures.put("delivered", delivered(dataSource, label));
    figures.put("operation_s", latencies);
    figures.put("ledger_operation_s", operationSeconds(dataSource, label));
    figures.put("ops_per_s", Figures.perSecond(run.operations(), elapsed));
    figures.put("elapsed_s", Figures.round(seconds));
    figures.put("statements_per_operation", Figures.perOperation(ownStatements, run.operations()));
    figures.put("statements_per_s", Figures.round(ownStatements / seconds));
    figures.put("background_statements_per_s", Figures.round(background));
    figures.put("posts_per_operation", Figures.perOperation(calls.posts(), run.operations()));
    figures.put(
        "worker_cpu_ms_per_operation",
        cpu.isZero() ? null : Figures.perOperation(cpu.toMillis(), run.operations()));
    figures.put("lock_waits", lockWaits);
    figures.put("dispatched_by_worker", dispatched);
    figures.put("shares", shares(dispatched, run.operations()));
    figures.put("share_max_min_ratio", maxMinRatio(dispatched.values()));
    figures.put("statements_by_name_per_operation", topPerOperation(byName, run.operations()));
    progress.accept(label + ": " + JSON.valueToTree(figures));
    progress.accept(
        label
            + ": "
            + figures.get("ops_per_s")
            + " a second, "
            + lockWaits.get("across_workers")
            + " lock waits sampled across workers, shares "
            + figures.get("shares"));
    return figures;
  }

  /**
   * The batch's timeout and room for a dispatch whose result was lost (under load a worker's report
   * to the server can time out): its 2-minute start-to-close timeout, then its retry.
   */
  private static Duration timeout(int operations) {
    return Batch.timeout(operations).plus(Duration.ofMinutes(3));
  }

  private static String label(int workers, boolean allowance) {
    return "w" + workers + (allowance ? "-allowance" : "");
  }

  /** A batch's operation ids: the run's prefix, the batch's label, a dot, a number. */
  private List<String> ids(String label, int size) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ids.add(pattern(label).replace("%", Integer.toString(i)));
    }
    return ids;
  }

  /** The LIKE pattern of a batch's operation ids. */
  private String pattern(String label) {
    return prefix + label + ".%";
  }

  private static Duration cpu(List<WorkerJvm> fleet) {
    Duration total = Duration.ZERO;
    for (WorkerJvm worker : fleet) {
      total = total.plus(worker.cpuTime());
    }
    return total;
  }

  /** Dispatches by worker id, every worker of the fleet named (zero when it took none). */
  private Map<String, Long> dispatchesByWorker(DataSource dataSource, String label, int workers)
      throws SQLException {
    Map<String, Long> byWorker = new java.util.TreeMap<>();
    for (int i = 1; i <= workers; i++) {
      byWorker.put(WORKER_PREFIX + i, 0L);
    }
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT owner, count(*) FROM app_generation_transitions"
                    + " WHERE operation_id LIKE ? AND event = 'submitting' GROUP BY owner")) {
      statement.setString(1, pattern(label));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          byWorker.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return byWorker;
  }

  private long delivered(DataSource dataSource, String label) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM app_generation_operations"
                    + " WHERE operation_id LIKE ? AND phase = 'delivered'")) {
      statement.setString(1, pattern(label));
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** An operation that takes this long waited on a timeout: the batch's rate then shows nothing. */
  static final double STRAGGLER_SECONDS = 60;

  /**
   * Each operation from its start to its result ({@code p50}, {@code p99}, {@code max}), the
   * stragglers (longer than {@value #STRAGGLER_SECONDS} s), and the rate up to the 95th
   * percentile's result ({@code ops_per_s_to_p95}), which a straggler does not drag down.
   */
  static Map<String, Object> latencies(Map<String, Double> starts, Map<String, Double> ends) {
    List<Double> durations = new ArrayList<>();
    ends.forEach((id, end) -> durations.add(end - starts.get(id)));
    List<Double> sortedEnds = new ArrayList<>(ends.values());
    java.util.Collections.sort(sortedEnds);
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("p50", Figures.percentile(durations, 50));
    figures.put("p99", Figures.percentile(durations, 99));
    figures.put("max", Figures.percentile(durations, 100));
    figures.put("stragglers", durations.stream().filter(d -> d > STRAGGLER_SECONDS).count());
    Double toP95 = null;
    if (!sortedEnds.isEmpty()) {
      int rank = (int) Math.ceil(0.95 * sortedEnds.size());
      double end = sortedEnds.get(rank - 1);
      toP95 = end > 0 ? Figures.round(rank / end) : null;
    }
    figures.put("ops_per_s_to_p95", toP95);
    return figures;
  }

  /**
   * How long the run's operations took in the ledger, created to last written ({@code p50}, {@code
   * p99}, {@code max}), and the most dispatch attempts one took: a straggler shows here, where the
   * batch's rate only shows that it was slow.
   */
  private Map<String, Object> operationSeconds(DataSource dataSource, String label)
      throws SQLException {
    Map<String, Object> seconds = new LinkedHashMap<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                """
                SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s),
                       percentile_cont(0.99) WITHIN GROUP (ORDER BY s), max(s), max(attempts)
                FROM (SELECT extract(epoch FROM updated_at - created_at) AS s,
                             dispatch_attempts AS attempts
                      FROM app_generation_operations WHERE operation_id LIKE ?) o
                """)) {
      statement.setString(1, pattern(label));
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        seconds.put("p50", Figures.round(rs.getDouble(1)));
        seconds.put("p99", Figures.round(rs.getDouble(2)));
        seconds.put("max", Figures.round(rs.getDouble(3)));
        seconds.put("max_dispatch_attempts", rs.getLong(4));
      }
    }
    return seconds;
  }

  /** Each worker's dispatches over the operations. */
  static Map<String, Double> shares(Map<String, Long> dispatched, int operations) {
    Map<String, Double> shares = new LinkedHashMap<>();
    dispatched.forEach(
        (worker, count) -> shares.put(worker, Figures.perOperation(count, operations)));
    return shares;
  }

  /** The busiest worker's dispatches over the idlest's; null when one took none. */
  static Double maxMinRatio(java.util.Collection<Long> dispatched) {
    long max = dispatched.stream().mapToLong(Long::longValue).max().orElse(0);
    long min = dispatched.stream().mapToLong(Long::longValue).min().orElse(0);
    return min == 0 ? null : Figures.round((double) max / min);
  }

  private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
    Map<String, Long> difference = new LinkedHashMap<>();
    after.forEach(
        (name, calls) -> {
          long delta = calls - before.getOrDefault(name, 0L);
          if (delta > 0) {
            difference.put(name, delta);
          }
        });
    return difference;
  }

  /** The {@value #TOP_STATEMENTS} statements run most, per operation, most first. */
  private static Map<String, Double> topPerOperation(Map<String, Long> calls, int operations) {
    Map<String, Double> top = new LinkedHashMap<>();
    calls.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(TOP_STATEMENTS)
        .forEach(e -> top.put(e.getKey(), Figures.perOperation(e.getValue(), operations)));
    return top;
  }

  /** Lock waits sampled across workers, without an allowance and with one, over all sizes. */
  private static Map<String, Long> acrossWorkers(List<Map<String, Object>> runs) {
    Map<String, Long> across = new LinkedHashMap<>();
    for (Map<String, Object> run : runs) {
      String key = (Boolean) run.get("allowance") ? "with_allowance" : "without_allowance";
      @SuppressWarnings("unchecked")
      Map<String, Object> waits = (Map<String, Object>) run.get("lock_waits");
      across.merge(key, (Long) waits.get("across_workers"), Long::sum);
    }
    return across;
  }

  /** The most uneven share ratio of any run of more than one worker; null when one took none. */
  private static Double worstShareRatio(List<Map<String, Object>> runs) {
    Double worst = 1.0;
    for (Map<String, Object> run : runs) {
      if ((Integer) run.get("workers") > 1) {
        Double ratio = (Double) run.get("share_max_min_ratio");
        if (ratio == null) {
          return null;
        }
        worst = Math.max(worst, ratio);
      }
    }
    return worst;
  }
}
