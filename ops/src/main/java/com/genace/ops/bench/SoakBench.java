package com.genace.ops.bench;

import com.genace.allowance.AllowancePolicy;
import com.genace.allowance.DispatchAllowance;
import com.genace.db.Database;
import com.genace.db.DatabaseConfig;
import com.genace.db.Sql;
import com.genace.ledger.ClaimResult;
import com.genace.ledger.Lease;
import com.genace.ledger.LedgerRetention;
import com.genace.ledger.LedgerStatistics;
import com.genace.ledger.OperationsLedger;
import com.genace.ledger.RenewResult;
import com.genace.ledger.SweepCursor;
import com.genace.ledger.SweepPosition;
import com.genace.lifecycle.RetentionReport;
import com.genace.lifecycle.SweepActivitiesImpl;
import com.genace.model.NextAction;
import com.genace.model.RemoteStatus;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * {@code bench soak}: the ledger after months, at 1 %, 10 % and 100 % of N ended operations.
 *
 * <ol>
 *   <li>{@value #UNFINISHED} unfinished operations, created once: reviews, observing (on the poll
 *       schedule) and pending, spread over the last 30 days.
 *   <li>For each size, the ended operations are added in bulk ({@code INSERT ... SELECT
 *       generate_series}, in chunks) up to that size: ends spread evenly over the last 30 days
 *       (oldest first, as a ledger fills), 90 % delivered with 7 history rows, 7 % failed with 4, 3
 *       % abandoned with 5 and review evidence; one settled reservation each. Then {@code VACUUM
 *       ANALYZE}, as autovacuum would, and a {@code CHECKPOINT}.
 *   <li>At each size, the lowest median of three slices of {@value #SAMPLES} runs of each hot
 *       statement through the ledger's API: {@code claim} (observe), {@code renew}, {@code
 *       snapshot} (the fenced snapshot write), {@code release} on observing operations, and the
 *       dispatch claim with a limited allowance ({@code claim} for dispatch, then {@code reserve});
 *       the fleet gauges ({@link LedgerStatistics}, recomputed each time); the sweeper's ledger
 *       side of one pass (every page of unfinished operations and the moves of its position,
 *       without the describes, one per unfinished operation whatever the history); one retention
 *       pass with a window of {@value #RETENTION_DAYS} days (about a tenth of the ended operations
 *       due), default bounds.
 *   <li>At the largest size, the hot statements again while that retention pass runs, on other
 *       connections: against their medians without it.
 * </ol>
 *
 * Rows carry a per-run prefix and are deleted afterwards. {@code hot_growth} is the largest size's
 * median over the smallest's, for the statement that grew most.
 */
final class SoakBench {

  static final int UNFINISHED = 2_000;
  static final int SAMPLES = 400;
  static final int SLICES = 3;
  static final int SLICE_WHILE = 200;
  static final int GAUGE_SAMPLES = 20;
  static final int RETENTION_DAYS = 27;
  static final int CHUNK = 100_000;
  static final List<String> STATEMENTS =
      List.of("claim", "renew", "snapshot", "release", "dispatch_claim");

  /** Limited (so that the allowance really checks) but never reached by the bench. */
  static final AllowancePolicy POLICY = LedgerBench.POLICY;

  private final BenchServices services;
  private final Consumer<String> progress;
  private final String prefix =
      "soak-" + java.util.UUID.randomUUID().toString().substring(0, 8) + "-";

  SoakBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  BenchReport run(int operations) throws Exception {
    try (Database database = services.open(8)) {
      DataSource db = database.dataSource();
      OperationsLedger ledger = new OperationsLedger(db);
      DispatchAllowance allowance = new DispatchAllowance(db, POLICY);
      LedgerStatistics gauges = new LedgerStatistics(Sql.of(db), Duration.ZERO, "bench-soak");
      try {
        progress.accept("creating " + UNFINISHED + " unfinished operations");
        unfinished(db);
        Map<String, Map<String, Double>> hot = new LinkedHashMap<>();
        Map<String, Double> gaugesMs = new LinkedHashMap<>();
        Map<String, Double> sweepMs = new LinkedHashMap<>();
        Map<String, Long> sweepRows = new LinkedHashMap<>();
        Map<String, Long> retentionMs = new LinkedHashMap<>();
        Map<String, Long> retentionDeleted = new LinkedHashMap<>();
        Map<String, Double> hotDuringRetention = null;
        long built = 0;
        List<Integer> sizes = sizes(operations);
        progress.accept("warming up the hot statements");
        new HotLoop(ledger, allowance, db, prefix).medians(SAMPLES, new AtomicBoolean(false));
        for (int i = 0; i < sizes.size(); i++) {
          int size = sizes.get(i);
          String key = String.valueOf(size);
          progress.accept("adding ended operations: " + built + " -> " + size);
          long started = System.nanoTime();
          built = addEnded(db, built, size);
          execute(db, "VACUUM ANALYZE app_generation_operations");
          execute(db, "VACUUM ANALYZE app_generation_transitions");
          execute(db, "VACUUM ANALYZE app_dispatch_reservations");
          execute(db, "VACUUM ANALYZE app_review_evidence");
          checkpoint(db);
          progress.accept(
              "ledger of "
                  + size
                  + " ended operations built in "
                  + (System.nanoTime() - started) / 1_000_000_000
                  + " s; measuring");
          HotLoop loop = new HotLoop(ledger, allowance, db, prefix);
          hot.put(key, loop.medians(SAMPLES, new AtomicBoolean(false)));
          gaugesMs.put(key, gaugeMillis(gauges));
          long sweepStarted = System.nanoTime();
          sweepRows.put(key, sweepPass(ledger));
          sweepMs.put(key, Figures.round(Figures.millis(System.nanoTime() - sweepStarted)));
          boolean largest = i == sizes.size() - 1;
          CompletableFuture<Map<String, Double>> during = null;
          AtomicBoolean passRunning = new AtomicBoolean(true);
          if (largest) {
            HotLoop concurrent = new HotLoop(ledger, allowance, db, prefix + "during-");
            during = CompletableFuture.supplyAsync(() -> concurrent.medians(0, passRunning));
          }
          RetentionReport pass;
          try {
            pass =
                ledger
                    .retention()
                    .pass(
                        Duration.ofDays(RETENTION_DAYS),
                        POLICY.window(),
                        LedgerRetention.Bounds.DEFAULT,
                        () -> {});
          } finally {
            passRunning.set(false);
          }
          if (during != null) {
            hotDuringRetention = during.get();
          }
          retentionMs.put(key, pass.elapsedMillis());
          retentionDeleted.put(key, pass.operationsDeleted());
          progress.accept(
              "size "
                  + size
                  + ": hot "
                  + hot.get(key)
                  + ", gauges "
                  + gaugesMs.get(key)
                  + " ms, sweep "
                  + sweepMs.get(key)
                  + " ms, retention "
                  + pass.operationsDeleted()
                  + " deleted in "
                  + pass.elapsedMillis()
                  + " ms");
        }
        String smallest = String.valueOf(sizes.get(0));
        String largestKey = String.valueOf(sizes.get(sizes.size() - 1));
        BenchReport report =
            new BenchReport("soak")
                .put("operations", operations)
                .put("transitions", count(db, "SELECT count(*) FROM app_generation_transitions"))
                .put("unfinished", UNFINISHED)
                .put("hot_ms", hot)
                .put("hot_growth", worstRatio(hot.get(largestKey), hot.get(smallest)))
                .put("hot_growth_statement", worstStatement(hot.get(largestKey), hot.get(smallest)))
                .put("gauges_ms", gaugesMs)
                .put("sweep_pass_ms", sweepMs)
                .put("sweep_rows_seen", sweepRows)
                .put("retention_pass_ms", retentionMs)
                .put("retention_deleted", retentionDeleted)
                .put("retention_days", RETENTION_DAYS);
        if (hotDuringRetention != null) {
          report
              .put("hot_ms_during_retention", hotDuringRetention)
              .put(
                  "hot_during_retention_ratio",
                  worstRatio(hotDuringRetention, hot.get(largestKey)));
        }
        return report;
      } finally {
        cleanUp(db);
      }
    }
  }

  /** 1 %, 10 % and 100 % of N (at least one operation each). */
  static List<Integer> sizes(int operations) {
    return List.of(
        Math.max(1, operations / 100), Math.max(1, operations / 10), Math.max(1, operations));
  }

  /** The largest ratio of {@code to} over {@code from} among the statements; null without data. */
  static Double worstRatio(Map<String, Double> to, Map<String, Double> from) {
    Double worst = null;
    for (String statement : to.keySet()) {
      Double ratio = Figures.ratio(to.get(statement), from.get(statement));
      if (ratio != null && (worst == null || ratio > worst)) {
        worst = ratio;
      }
    }
    return worst;
  }

  private static String worstStatement(Map<String, Double> to, Map<String, Double> from) {
    String worst = null;
    double max = Double.NEGATIVE_INFINITY;
    for (String statement : to.keySet()) {
      Double ratio = Figures.ratio(to.get(statement), from.get(statement));
      if (ratio != null && ratio > max) {
        max = ratio;
        worst = statement;
      }
    }
    return worst;
  }

  /**
   * Reviews (half), observing operations on the poll schedule (30 %) and pending ones (20 %),
   * created over the last 30 days, each with a few history rows.
   */
  private void unfinished(DataSource db) {
    execute(
        db,
        """
        INSERT INTO app_generation_operations
            (operation_id, phase, next_action, model, request, account, remote_job_id,
             review_reason, review_opened_at, poll_due_at, created_at, phase_since, updated_at)
        SELECT '%1$su-' || g, p.phase, p.action, 'image-v1', '{"prompt":"soak"}'::jsonb,
               'soak-account', CASE WHEN p.phase <> 'pending' THEN 'gen_%1$su-' || g END,
               CASE WHEN p.phase = 'in_review' THEN 'dispatch_unknown' END,
               CASE WHEN p.phase = 'in_review' THEN t.at END,
               CASE WHEN p.phase = 'observing' THEN clock_timestamp() + interval '1 hour' END,
               t.at, t.at, t.at
        FROM generate_series(0, %2$d - 1) g
        CROSS JOIN LATERAL (SELECT CASE WHEN g %% 10 < 5 THEN 'in_review'
                                        WHEN g %% 10 < 8 THEN 'observing'
                                        ELSE 'pending' END AS phase) q
        CROSS JOIN LATERAL (SELECT q.phase,
                                   CASE q.phase WHEN 'in_review' THEN 'reconcile'
                                                WHEN 'observing' THEN 'observe'
                                                ELSE 'dispatch' END AS action) p
        CROSS JOIN LATERAL (SELECT clock_timestamp()
                                   - (g::double precision / %2$d) * interval '30 days' AS at) t
        """
            .formatted(prefix, UNFINISHED));
    execute(
        db,
        """
        INSERT INTO app_generation_transitions
            (operation_id, revision, owner, event, from_phase, to_phase, accepted, at)
        SELECT '%1$su-' || g, r, 'soak', 'created', NULL, 'pending', true, clock_timestamp()
        FROM generate_series(0, %2$d - 1) g CROSS JOIN generate_series(1, 3) r
        """
            .formatted(prefix, UNFINISHED));
  }

  /**
   * Adds ended operations {@code from} .. {@code to - 1}, in chunks, each chunk one statement per
   * table; their ends are spread evenly over the last 30 days whatever the size, oldest first, as a
   * ledger fills in time order (its history rows lie in the order they were written).
   */
  private long addEnded(DataSource db, long from, long to) {
    for (long start = from; start < to; start += CHUNK) {
      long end = Math.min(to, start + CHUNK);
      String ended =
          """
          SELECT g,
                 CASE WHEN g %% 100 < 90 THEN 'delivered' WHEN g %% 100 < 97 THEN 'failed'
                      ELSE 'abandoned' END AS phase,
                 CASE WHEN g %% 100 < 90 THEN 7 WHEN g %% 100 < 97 THEN 4 ELSE 5 END AS history,
                 clock_timestamp() - (%3$d - 1 - g)::double precision / (%3$d - %4$d)
                     * interval '30 days' AS ended_at
          FROM generate_series(%1$d::bigint, %2$d::bigint - 1) g
          """
              .formatted(start, end, to, from);
      execute(
          db,
          """
          INSERT INTO app_generation_operations
              (operation_id, phase, next_action, model, request, account, remote_job_id,
               delivery_manifest, failure_reason, created_at, phase_since, updated_at)
          SELECT '%1$se-' || e.g, e.phase, 'none', 'image-v1', '{"prompt":"soak"}'::jsonb,
                 'soak-account-' || (e.g %% 50), 'gen_%1$se-' || e.g,
                 CASE WHEN e.phase = 'delivered' THEN '{"artifacts":[]}'::jsonb END,
                 CASE WHEN e.phase <> 'delivered' THEN 'soak' END,
                 e.ended_at - interval '2 minutes', e.ended_at, e.ended_at
          FROM (%2$s) e
          """
              .formatted(prefix, ended));
      execute(
          db,
          """
          INSERT INTO app_generation_transitions
              (operation_id, revision, owner, event, from_phase, to_phase, accepted, details, at)
          SELECT '%1$se-' || e.g, r, 'soak', 'snapshot', 'observing', 'observing', true,
                 '{"status":"running"}'::jsonb, e.ended_at - (e.history - r) * interval '10 s'
          FROM (%2$s) e CROSS JOIN LATERAL generate_series(1, e.history) r
          """
              .formatted(prefix, ended));
      execute(
          db,
          """
          INSERT INTO app_dispatch_reservations
              (operation_id, account, credits, state, reserved_at, settled_at)
          SELECT '%1$se-' || e.g, 'soak-account-' || (e.g %% 50), 1,
                 CASE WHEN e.phase = 'failed' THEN 'released' ELSE 'spent' END,
                 e.ended_at - interval '2 minutes', e.ended_at - interval '110 seconds'
          FROM (%2$s) e
          """
              .formatted(prefix, ended));
      execute(
          db,
          """
          INSERT INTO app_review_evidence (operation_id, evidence, summary, gathered_at)
          SELECT '%1$se-' || e.g, '{"jobs":[]}'::jsonb, 'soak', e.ended_at - interval '1 minute'
          FROM (%2$s) e WHERE e.phase = 'abandoned'
          """
              .formatted(prefix, ended));
    }
    return to;
  }

  /**
   * Writes out what the bulk insert left dirty, so that its writes do not weigh on the figures that
   * follow (a ledger that grew over months has none pending). Needs a superuser (the embedded
   * server's); elsewhere the figures carry the background writer's work.
   */
  private void checkpoint(DataSource db) {
    try {
      execute(db, "CHECKPOINT");
    } catch (IllegalStateException e) {
      progress.accept("no CHECKPOINT (" + e.getMessage() + "); the figures carry its writes");
    }
  }

  private static double gaugeMillis(LedgerStatistics gauges) {
    gauges.read();
    List<Double> samples = new ArrayList<>();
    for (int i = 0; i < GAUGE_SAMPLES; i++) {
      long started = System.nanoTime();
      gauges.read();
      samples.add(Figures.millis(System.nanoTime() - started));
    }
    return Figures.percentile(samples, 50);
  }

  /** The ledger's side of one sweep pass: every page of unfinished operations, and its position. */
  private static long sweepPass(OperationsLedger ledger) {
    int pageSize = SweepActivitiesImpl.Bounds.DEFAULT.pageSize();
    SweepCursor cursor = ledger.sweepCursor("bench-soak");
    long generation = cursor.generation();
    SweepPosition position = SweepPosition.START;
    long seen = 0;
    while (true) {
      List<OperationsLedger.Unfinished> page = ledger.unfinishedAfter(position, pageSize);
      seen += page.size();
      boolean done = page.size() < pageSize;
      SweepPosition next = done ? SweepPosition.START : page.get(page.size() - 1).position();
      ledger.moveSweepCursor(generation++, next, done, "bench-soak");
      if (done) {
        return seen;
      }
      position = next;
    }
  }

  /** The hot statements in turn, on the unfinished operations, timed one by one. */
  private static final class HotLoop {

    private final OperationsLedger ledger;
    private final DispatchAllowance allowance;
    private final List<String> observing;
    private final List<String> pending;
    private final String owner;

    HotLoop(OperationsLedger ledger, DispatchAllowance allowance, DataSource db, String prefix) {
      this.ledger = ledger;
      this.allowance = allowance;
      this.owner = "bench-" + prefix;
      String base = prefix.endsWith("during-") ? prefix.substring(0, prefix.length() - 7) : prefix;
      // The concurrent loop works on the other half of the rows: the two never contend.
      boolean second = prefix.endsWith("during-");
      this.observing = ids(db, base, "observing", second);
      this.pending = ids(db, base, "pending", second);
    }

    /**
     * Each statement's latency: the lowest of the medians of {@value #SLICES} slices of {@code
     * rounds} rounds each, or, with 0, of slices of {@value #SLICE_WHILE} rounds for as long as
     * {@code until} is true (at least one). The lowest slice, so that a burst of background work
     * (an autovacuum, a neighbour's build on a shared machine) during one slice does not pass for
     * the ledger's growth; the same estimator with and without a retention pass running.
     */
    Map<String, Double> medians(int rounds, AtomicBoolean until) {
      Map<String, Double> best = new LinkedHashMap<>();
      int slice = 0;
      do {
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        STATEMENTS.forEach(s -> samples.put(s, new ArrayList<>()));
        int size = rounds > 0 ? rounds : SLICE_WHILE;
        for (int i = 0; i < size; i++) {
          round(slice * size + i, samples);
        }
        samples.forEach(
            (s, list) -> best.merge(s, Figures.percentile(list, 50), (a, b) -> Math.min(a, b)));
        slice++;
      } while (rounds > 0 ? slice < SLICES : until.get());
      return best;
    }

    private void round(int i, Map<String, List<Double>> samples) {
      String id = observing.get(i % observing.size());
      long t = System.nanoTime();
      ClaimResult claim = ledger.claim(id, owner, NextAction.OBSERVE);
      samples.get("claim").add(Figures.millis(System.nanoTime() - t));
      Lease lease = acquired(claim, id);
      t = System.nanoTime();
      if (!(ledger.renew(lease) instanceof RenewResult.Renewed)) {
        throw new IllegalStateException("the bench's own lease on " + id + " was not renewed");
      }
      samples.get("renew").add(Figures.millis(System.nanoTime() - t));
      t = System.nanoTime();
      ledger.recordSnapshot(
          lease, RemoteStatus.RUNNING, "{\"id\":\"gen_" + id + "\",\"status\":\"running\"}", null);
      samples.get("snapshot").add(Figures.millis(System.nanoTime() - t));
      t = System.nanoTime();
      ledger.release(lease);
      samples.get("release").add(Figures.millis(System.nanoTime() - t));

      String next = pending.get(i % pending.size());
      t = System.nanoTime();
      Lease dispatch = acquired(ledger.claim(next, owner, NextAction.DISPATCH), next);
      if (!allowance.reserve(next, "soak-account", "image-v1").granted()) {
        throw new IllegalStateException("the bench's allowance refused a reservation");
      }
      samples.get("dispatch_claim").add(Figures.millis(System.nanoTime() - t));
      allowance.settle(next, false);
      ledger.release(dispatch);
    }

    private static Lease acquired(ClaimResult claim, String id) {
      if (claim instanceof ClaimResult.Acquired acquired) {
        return acquired.lease();
      }
      throw new IllegalStateException("the bench could not claim its own " + id + ": " + claim);
    }

    private static List<String> ids(DataSource db, String prefix, String phase, boolean second) {
      List<String> ids = new ArrayList<>();
      try (Connection c = db.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT operation_id FROM app_generation_operations WHERE phase = '"
                      + phase
                      + "' AND operation_id LIKE '"
                      + prefix
                      + "u-%' ORDER BY operation_id")) {
        int row = 0;
        while (rs.next()) {
          if ((row++ % 2 == 1) == second) {
            ids.add(rs.getString(1));
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException("bench query failed: " + e.getMessage(), e);
      }
      return ids;
    }
  }

  private void cleanUp(DataSource db) {
    progress.accept("removing the bench's rows");
    try {
      for (String table :
          List.of(
              "app_generation_transitions",
              "app_dispatch_reservations",
              "app_review_evidence",
              "app_generation_operations")) {
        execute(db, "DELETE FROM " + table + " WHERE operation_id LIKE '" + prefix + "%'");
      }
    } catch (RuntimeException e) {
      progress.accept("could not remove the bench's rows (prefix " + prefix + "): " + e);
    }
  }

  private static long count(DataSource db, String sql) {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("bench query failed: " + e.getMessage(), e);
    }
  }

  /** The bench's own setup statements; the prefix is generated here, never from input. */
  private static void execute(DataSource db, String sql) {
    try (Connection c = db.getConnection()) {
      // Seeding and VACUUM take longer than the pool's statement timeout, which is the ledger's.
      try (Statement s = c.createStatement()) {
        s.execute("SET statement_timeout = 0");
        try {
          s.execute(sql);
        } finally {
          s.execute(
              "SET statement_timeout = " + DatabaseConfig.DEFAULT_STATEMENT_TIMEOUT.toMillis());
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bench setup failed: " + e.getMessage(), e);
    }
  }
}
