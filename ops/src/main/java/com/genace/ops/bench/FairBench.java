package com.genace.ops.bench;

import com.genace.activities.db.Database;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.Urgency;
import com.genace.testkit.LoopbackPorts;
import io.temporal.api.common.v1.Priority;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * {@code bench fair}: fairness between accounts on a Temporal server that honours fairness keys
 * ({@link GenerationClient#start(GenerationRequest, Urgency)} sets the request's account as the
 * key). One worker process; the simulator answers after {@value #LATENCY_MS} ms with renders that
 * end at once, so that the worker, not Genace, is the bottleneck and Temporal's queues hold a
 * backlog. Account {@value #BIG} has a cap on renders in flight ({@code --big-cap}).
 *
 * <ol>
 *   <li>Warm-up operations of account {@value #WARM_UP}, not measured.
 *   <li>{@code small} alone; {@code big} alone; {@code big}, then, once all of big's are started,
 *       {@code small} beside it; {@code small} alone again. Each run waits for every result before
 *       the next starts. The baseline (small alone) is measured before and after the contended runs
 *       and pooled, so that a drift over the bench (a warmer JVM, a longer ledger, a fuller
 *       in-memory server) weighs on it from both sides; each half's median is reported too.
 *   <li>Throughout, {@link InFlightSampler} samples every account's renders in flight: {@code
 *       over_cap} is the most any capped account had above its cap.
 * </ol>
 *
 * <p>An operation's wait runs from just before its start call to the {@code at} of its accepted
 * {@code submitting} transition: the ledger commits that row before any POST leaves ({@code
 * claim_to_post} follows within milliseconds), one per operation that was sent, whatever number of
 * capped turns came before it. The simulator's counters cannot tell which operation a POST was for.
 * The start time is this JVM's clock, {@code at} PostgreSQL's {@code clock_timestamp()}: the same
 * clock when PostgreSQL is embedded (or on this host); a remote DATABASE_URL adds its clock skew.
 */
final class FairBench {

  static final String BIG = "big";
  static final String SMALL = "small";
  static final String WARM_UP = "warm-up";
  static final int LATENCY_MS = 50;
  static final String FAULTS =
      """
      {"job_duration_ms": 0, "fail_rate": 0, "latency_ms": %d, "rate_429": 0, "rate_5xx": 0,
       "lose_post_response_next": 0}"""
          .formatted(LATENCY_MS);

  /** What the bench runs: the sizes, big's cap, small's cap and weight, big's priority. */
  record Plan(
      int big,
      int small,
      int bigCap,
      Integer smallCap,
      Double smallWeight,
      Urgency bigUrgency,
      int warmUp) {}

  /** What one run did: each operation's start, and when the last of each account's ended. */
  record Run(Map<String, Instant> starts, Map<String, Long> elapsedNanos) {}

  private final BenchServices services;
  private final Consumer<String> progress;
  private final String prefix = "bench-fair-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  FairBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  BenchReport run(Plan plan) throws Exception {
    int big = plan.big();
    int small = plan.small();
    services.simulator().setFaults(FAULTS);
    WorkflowClient client = services.temporal().workflowClient();
    GenerationClient generations = new GenerationClient(client);
    Map<String, Integer> caps = new LinkedHashMap<>();
    caps.put(BIG, plan.bigCap());
    if (plan.smallCap() != null) {
      caps.put(SMALL, plan.smallCap());
    }
    int statusPort = LoopbackPorts.free();
    try (ScratchHome home = ScratchHome.create(progress);
        Database database = services.open(2);
        Database sampling = services.open(1)) {
      OperationsLedger ledger = new OperationsLedger(database.dataSource());
      // Before the worker starts: it then reads the caps at its first dispatch.
      caps.forEach(
          (account, cap) -> ledger.accounts().setCap(account, OptionalInt.of(cap), "bench"));
      if (plan.smallWeight() != null) {
        // The worker writes the ledger's weights to Temporal at its start.
        ledger.accounts().setWeight(SMALL, OptionalDouble.of(plan.smallWeight()), "bench");
      }
      progress.accept(
          "caps: " + caps + ", small's weight: " + plan.smallWeight() + "; starting the worker");
      try (WorkerJvm worker =
          WorkerJvm.start(
              WorkerJvm.environment(services.workerEnvironment(), home, statusPort),
              home.resolve("worker.log"),
              "worker")) {
        worker.awaitHttpOk(
            URI.create("http://127.0.0.1:" + statusPort + "/readyz"), Duration.ofSeconds(180));
        Runner runner = new Runner(client, generations, Map.of(BIG, plan.bigUrgency()));
        if (plan.warmUp() > 0) {
          progress.accept("warming up: " + plan.warmUp() + " operations, not measured");
          runner.run("warm-up", Map.of(WARM_UP, plan.warmUp()));
        }
        Map<String, Object> figures;
        String sampleOperation;
        try (InFlightSampler sampler = new InFlightSampler(sampling.dataSource()).start()) {
          Run alone1 = runner.run("small-alone-1", Map.of(SMALL, small));
          Run bigAlone = runner.run("big-alone", Map.of(BIG, big));
          Map<String, Integer> both = new LinkedHashMap<>();
          both.put(BIG, big);
          both.put(SMALL, small);
          Run beside = runner.run("big-with-small", both);
          Run alone2 = runner.run("small-alone-2", Map.of(SMALL, small));
          sampler.close();
          sampleOperation = first(beside, SMALL);
          figures =
              figures(database.dataSource(), alone1, alone2, beside, bigAlone, big, caps, sampler);
          figures.put(
              "small_wait_parts_ms",
              breakdown(client, database.dataSource(), alone1, alone2, beside));
        }
        figures.put("dispatch_priority", priorities(client, sampleOperation));
        BenchReport report = new BenchReport("fair");
        figures.forEach((field, value) -> put(report, field, value));
        progress.accept("small_wait_ratio " + figures.get("small_wait_ratio"));
        return home.succeeded(
            report
                .put("big", big)
                .put("small", small)
                .put("big_cap", plan.bigCap())
                .put("small_cap", plan.smallCap())
                .put("small_weight", plan.smallWeight())
                .put("big_priority", plan.bigUrgency().wire())
                .put("warm_up", plan.warmUp())
                .put("latency_ms", LATENCY_MS)
                .put("render_ms", 0)
                .put("wait_source", "ledger: first accepted submitting transition"));
      }
    }
  }

  private Map<String, Object> figures(
      DataSource dataSource,
      Run alone1,
      Run alone2,
      Run beside,
      Run bigAlone,
      int big,
      Map<String, Integer> caps,
      InFlightSampler sampler)
      throws SQLException {
    List<Double> waitAlone1 = waits(dataSource, alone1, SMALL);
    List<Double> waitAlone2 = waits(dataSource, alone2, SMALL);
    List<Double> waitAlone = new ArrayList<>(waitAlone1);
    waitAlone.addAll(waitAlone2);
    List<Double> waitBeside = waits(dataSource, beside, SMALL);
    Double medianAlone = Figures.percentile(waitAlone, 50);
    Double medianBeside = Figures.percentile(waitBeside, 50);
    Double bigWith = perSecond(big, beside.elapsedNanos().get(BIG));
    Double bigWithout = perSecond(big, bigAlone.elapsedNanos().get(BIG));
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("small_wait_ratio", Figures.ratio(medianBeside, medianAlone));
    figures.put("big_throughput_ratio", Figures.ratio(bigWith, bigWithout));
    figures.put("over_cap", sampler.overCap(caps));
    Map<String, Object> smallWaits = new LinkedHashMap<>();
    smallWaits.put("alone", distribution(waitAlone));
    smallWaits.put("beside_big", distribution(waitBeside));
    smallWaits.put("alone_p50_before_and_after", List.of(p50(waitAlone1), p50(waitAlone2)));
    figures.put("small_wait_ms", smallWaits);
    Map<String, Object> bigWaits = new LinkedHashMap<>();
    bigWaits.put("alone", distribution(waits(dataSource, bigAlone, BIG)));
    bigWaits.put("beside_small", distribution(waits(dataSource, beside, BIG)));
    figures.put("big_wait_ms", bigWaits);
    Map<String, Object> throughput = new LinkedHashMap<>();
    throughput.put("alone", bigWithout);
    throughput.put("with_small", bigWith);
    figures.put("big_ops_per_s", throughput);
    figures.put("max_in_flight", sampler.most());
    figures.put("in_flight_samples", sampler.samples());
    figures.put("in_flight_failed_samples", sampler.failedSamples());
    figures.put("delivered", delivered(dataSource));
    return figures;
  }

  private static Double p50(List<Double> samples) {
    return Figures.percentile(samples, 50);
  }

  private static Map<String, Object> distribution(List<Double> millis) {
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("p50", Figures.percentile(millis, 50));
    figures.put("p95", Figures.percentile(millis, 95));
    figures.put("max", Figures.percentile(millis, 100));
    figures.put("n", millis.size());
    return figures;
  }

  private static Double perSecond(int operations, Long nanos) {
    return nanos == null ? null : Figures.perSecond(operations, Duration.ofNanos(nanos));
  }

  /** Starts a run's accounts one after the other and waits for all their results. */
  private final class Runner {
    private final WorkflowClient client;
    private final GenerationClient generations;
    private final Map<String, Urgency> urgencies;

    /** {@code urgencies}: an account's priority where it is not {@link Urgency#NORMAL}. */
    Runner(WorkflowClient client, GenerationClient generations, Map<String, Urgency> urgencies) {
      this.client = client;
      this.generations = generations;
      this.urgencies = urgencies;
    }

    Run run(String label, Map<String, Integer> accounts) throws InterruptedException {
      progress.accept(label + ": " + accounts);
      Map<String, Instant> starts = new ConcurrentHashMap<>();
      Map<String, Long> elapsed = new LinkedHashMap<>();
      List<CompletableFuture<?>> all = new ArrayList<>();
      long first = System.nanoTime();
      Map<String, long[]> lastEnd = new ConcurrentHashMap<>();
      for (Map.Entry<String, Integer> account : accounts.entrySet()) {
        String name = account.getKey();
        long[] end = {0};
        lastEnd.put(name, end);
        List<String> ids = ids(label, name, account.getValue());
        Batch.startAll(
            ids,
            id -> {
              starts.put(id, Instant.now());
              generations.start(
                  new GenerationRequest(id, EndToEndBench.MODEL, EndToEndBench.INPUT, null, name),
                  urgencies.getOrDefault(name, Urgency.NORMAL));
            });
        for (String id : ids) {
          all.add(
              client
                  .newUntypedWorkflowStub(GenerationWorkflow.workflowId(id))
                  .getResultAsync(OperationResult.class)
                  .whenComplete(
                      (result, failure) -> {
                        synchronized (end) {
                          end[0] = Math.max(end[0], System.nanoTime());
                        }
                      }));
        }
      }
      int total = all.size();
      Duration timeout = Batch.timeout(total).plus(Duration.ofMinutes(3));
      try {
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            label + ": an operation did not complete: " + e.getCause().getMessage(), e);
      } catch (TimeoutException e) {
        long done = all.stream().filter(CompletableFuture::isDone).count();
        throw new IllegalStateException(
            label + ": " + done + " of " + total + " ended within " + timeout.toSeconds() + " s");
      }
      lastEnd.forEach((name, end) -> elapsed.put(name, end[0] - first));
      progress.accept(
          label + ": done in " + Figures.round((System.nanoTime() - first) / 1e9) + " s");
      return new Run(starts, elapsed);
    }
  }

  /** A run's operation ids of one account: the bench's prefix, the run, the account, a number. */
  private List<String> ids(String label, String account, int size) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ids.add(prefix + label + "." + account + "." + i);
    }
    return ids;
  }

  /** Each of the run's operations of {@code account}: from its start to its POST, in ms. */
  private List<Double> waits(DataSource dataSource, Run run, String account) throws SQLException {
    Map<String, Instant> posts = posts(dataSource, account);
    List<Double> waits = new ArrayList<>();
    of(run, account)
        .forEach(
            (id, start) -> {
              Instant post = posts.get(id);
              if (post != null) {
                waits.add(Duration.between(start, post).toNanos() / 1e6);
              }
            });
    return waits;
  }

  /** The starts of the run's operations of {@code account}. */
  private static Map<String, Instant> of(Run run, String account) {
    Map<String, Instant> starts = new LinkedHashMap<>();
    run.starts()
        .forEach(
            (id, start) -> {
              if (id.contains("." + account + ".")) {
                starts.put(id, start);
              }
            });
    return starts;
  }

  /** When each of the bench's operations of {@code account} was marked submitting, first. */
  private Map<String, Instant> posts(DataSource dataSource, String account) throws SQLException {
    Map<String, Instant> posts = new LinkedHashMap<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT operation_id, min(at) FROM app_generation_transitions"
                    + " WHERE operation_id LIKE ? AND event = 'submitting' AND accepted"
                    + " GROUP BY operation_id")) {
      statement.setString(1, prefix + "%." + account + ".%");
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          posts.put(rs.getString(1), rs.getTimestamp(2).toInstant());
        }
      }
    }
    return posts;
  }

  /** Small's wait in parts (WaitBreakdown), alone (both runs) and beside big. */
  private Map<String, Object> breakdown(
      WorkflowClient client, DataSource dataSource, Run alone1, Run alone2, Run beside)
      throws SQLException {
    Map<String, Instant> posts = posts(dataSource, SMALL);
    Map<String, Instant> alone = new LinkedHashMap<>(of(alone1, SMALL));
    alone.putAll(of(alone2, SMALL));
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("alone", WaitBreakdown.of(client, alone, posts));
    figures.put("beside_big", WaitBreakdown.of(client, of(beside, SMALL), posts));
    return figures;
  }

  private static String first(Run run, String account) {
    return run.starts().keySet().stream()
        .filter(id -> id.contains("." + account + "."))
        .sorted()
        .findFirst()
        .orElseThrow();
  }

  /**
   * The priority the workflow was started with and the one each dispatch's ActivityTaskScheduled
   * event records, from one operation's history: whether the activities carry the fairness key.
   */
  private static Map<String, Object> priorities(WorkflowClient client, String operationId) {
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("operation_id", operationId);
    for (HistoryEvent event :
        client.fetchHistory(GenerationWorkflow.workflowId(operationId)).getEvents()) {
      if (event.hasWorkflowExecutionStartedEventAttributes()) {
        figures.put(
            "workflow_started",
            show(event.getWorkflowExecutionStartedEventAttributes().getPriority()));
      } else if (event.hasActivityTaskScheduledEventAttributes()) {
        var scheduled = event.getActivityTaskScheduledEventAttributes();
        figures.putIfAbsent(
            "activity_scheduled_" + scheduled.getTaskQueue().getName(),
            scheduled.hasPriority() ? show(scheduled.getPriority()) : "unset");
      }
    }
    return figures;
  }

  private static String show(Priority priority) {
    return "priority_key="
        + priority.getPriorityKey()
        + " fairness_key="
        + priority.getFairnessKey()
        + " fairness_weight="
        + priority.getFairnessWeight();
  }

  private long delivered(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM app_generation_operations"
                    + " WHERE operation_id LIKE ? AND phase = 'delivered'")) {
      statement.setString(1, prefix + "%");
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static void put(BenchReport report, String field, Object value) {
    if (value instanceof Number number) {
      report.put(field, number);
    } else if (value instanceof Map<?, ?> map) {
      report.put(field, (Map<String, ?>) map);
    } else if (value instanceof List<?> list) {
      report.put(field, list);
    } else {
      report.put(field, value == null ? null : value.toString());
    }
  }
}
