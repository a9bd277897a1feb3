package com.genace.ops.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Samples the lock waits of the database every {@value #INTERVAL_MS} ms on a connection of its own:
 * each backend waiting for a lock ({@code pg_locks} not granted), each backend that blocks it
 * ({@code pg_blocking_pids}), and what both run or last ran ({@code pg_stat_activity}: a blocker
 * idle in its transaction shows the statement that took the lock). A wait is {@code across_workers}
 * when waiter and blocker are two different worker processes (told apart by their {@code
 * application_name}), {@code within_a_worker} when they are the same one. A wait shorter than the
 * interval is seen in proportion to its length: the figures are samples, not a count of every wait.
 */
final class LockWaitSampler implements AutoCloseable {

  static final int INTERVAL_MS = 100;

  /** One waiter and one of its blockers, as sampled. */
  record Wait(
      String waiterApplication,
      String waiterQuery,
      String blockerApplication,
      String blockerQuery,
      String blockerState) {}

  private static final String WAITS =
      """
      SELECT w.application_name, w.query, b.application_name, b.query, b.state
      FROM pg_stat_activity w
      CROSS JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS blocker(pid)
      JOIN pg_stat_activity b ON b.pid = blocker.pid
      WHERE w.pid IN (SELECT l.pid FROM pg_locks l WHERE NOT l.granted)
      """;

  private final DataSource dataSource;
  private final String workerPrefix;
  private final StatementNames names;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "bench-lock-waits");
            thread.setDaemon(true);
            return thread;
          });
  private long samples;
  private long waitingSamples;
  private long failedSamples;
  private final Map<String, Map<String, Long>> byStatement = new TreeMap<>();
  private final Map<String, Long> byKind = new LinkedHashMap<>();

  /**
   * @param workerPrefix the {@code application_name} prefix of the workers' connections
   */
  LockWaitSampler(DataSource dataSource, String workerPrefix, StatementNames names) {
    this.dataSource = dataSource;
    this.workerPrefix = workerPrefix;
    this.names = names;
    byKind.put("across_workers", 0L);
    byKind.put("within_a_worker", 0L);
    byKind.put("other", 0L);
  }

  /** Starts sampling; {@link #close} stops it. */
  LockWaitSampler start() {
    timer.scheduleWithFixedDelay(this::sample, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
    return this;
  }

  private void sample() {
    List<Wait> waits = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(WAITS)) {
      while (rs.next()) {
        waits.add(
            new Wait(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5)));
      }
    } catch (SQLException | RuntimeException e) {
      // Counted, and the next sample is taken: one failure must not end the sampling.
      synchronized (this) {
        failedSamples++;
      }
      return;
    }
    add(waits);
  }

  /** Tallies one sample: the waits seen at one instant (none, most of the time). */
  synchronized void add(List<Wait> waits) {
    samples++;
    if (waits.isEmpty()) {
      return;
    }
    waitingSamples++;
    for (Wait wait : waits) {
      String kind = kind(wait);
      byKind.merge(kind, 1L, Long::sum);
      String blocker = names.name(wait.blockerQuery());
      if ("idle in transaction".equals(wait.blockerState())) {
        blocker += " (idle in transaction)";
      }
      byStatement
          .computeIfAbsent(names.name(wait.waiterQuery()) + " <- " + blocker, k -> new TreeMap<>())
          .merge(kind, 1L, Long::sum);
    }
  }

  private String kind(Wait wait) {
    boolean waiterIsWorker = isWorker(wait.waiterApplication());
    boolean blockerIsWorker = isWorker(wait.blockerApplication());
    if (!waiterIsWorker || !blockerIsWorker) {
      return "other";
    }
    return wait.waiterApplication().equals(wait.blockerApplication())
        ? "within_a_worker"
        : "across_workers";
  }

  private boolean isWorker(String application) {
    return application != null && application.startsWith(workerPrefix);
  }

  /** Waits sampled across two workers: what a serialized fleet would show. */
  synchronized long acrossWorkers() {
    return byKind.get("across_workers");
  }

  /**
   * {@code samples}, {@code waiting_samples} (samples that saw a backend wait), {@code
   * waiting_share}, the waits by kind, and {@code by_statement}: "waiting statement <- blocking
   * statement" with the waits by kind.
   */
  synchronized Map<String, Object> figures() {
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("samples", samples);
    figures.put("waiting_samples", waitingSamples);
    figures.put(
        "waiting_share", samples == 0 ? null : Figures.round((double) waitingSamples / samples));
    figures.putAll(byKind);
    figures.put("failed_samples", failedSamples);
    figures.put("by_statement", new TreeMap<>(byStatement));
    return figures;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
