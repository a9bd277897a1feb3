package com.genace.ops.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Samples every account's renders in flight (phase {@code submitting} or {@code observing}, as the
 * cap counts them: {@code AccountSettings.IN_FLIGHT}) every {@value #INTERVAL_MS} ms on a
 * connection of its own, and keeps each account's most. A peak shorter than the interval may be
 * missed: these are samples, not a proof.
 */
final class InFlightSampler implements AutoCloseable {

  static final int INTERVAL_MS = 100;

  private static final String IN_FLIGHT =
      "SELECT account, count(*) FROM app_generation_operations"
          + " WHERE phase IN ('submitting', 'observing') AND account <> '' GROUP BY account";

  private final DataSource dataSource;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "bench-in-flight");
            thread.setDaemon(true);
            return thread;
          });
  private final Map<String, Long> most = new TreeMap<>();
  private long samples;
  private long failedSamples;

  InFlightSampler(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Starts sampling; {@link #close} stops it. */
  InFlightSampler start() {
    timer.scheduleWithFixedDelay(this::sample, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
    return this;
  }

  private void sample() {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(IN_FLIGHT)) {
      Map<String, Long> now = new LinkedHashMap<>();
      while (rs.next()) {
        now.put(rs.getString(1), rs.getLong(2));
      }
      synchronized (this) {
        samples++;
        now.forEach((account, count) -> most.merge(account, count, Math::max));
      }
    } catch (SQLException | RuntimeException e) {
      synchronized (this) {
        failedSamples++;
      }
    }
  }

  /** Each account's most renders in flight in any sample. */
  synchronized Map<String, Long> most() {
    return new TreeMap<>(most);
  }

  /**
   * The most renders any capped account had in flight above its cap in any sample (0 when none was
   * ever above).
   */
  synchronized long overCap(Map<String, Integer> caps) {
    long over = 0;
    for (Map.Entry<String, Integer> cap : caps.entrySet()) {
      over = Math.max(over, most.getOrDefault(cap.getKey(), 0L) - cap.getValue());
    }
    return over;
  }

  synchronized long samples() {
    return samples;
  }

  synchronized long failedSamples() {
    return failedSamples;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
