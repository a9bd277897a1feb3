package com.genace.ops.bench;

import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.db.Database;
import com.genace.activities.db.Sql;
import com.genace.activities.ledger.LedgerRetention;
import com.genace.activities.ledger.LedgerStatistics;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.SweepCursor;
import com.genace.activities.ledger.SweepPosition;
import com.genace.activities.lifecycle.SweepActivitiesImpl;
import com.genace.workflows.lifecycle.RetentionReport;
import java.time.Duration;
import java.util.ArrayList;
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
 *   <li>At each size, repeated (median and spread of the repeats), the lowest median of three
 *       slices of {@value #SAMPLES} runs of each hot statement through the ledger's API ({@link
 *       SoakHotLoop}): a status poll's claim and reschedule on the poll schedule, the lease cycle
 *       ({@code claim}, {@code renew}, {@code release}) and a poll's snapshot ({@code
 *       record_observed_snapshot}) on observing operations, and the dispatch claim with a limited
 *       allowance ({@code claim} for dispatch, then {@code reserve}); the fleet gauges ({@link
 *       LedgerStatistics}, recomputed each time); the sweeper's ledger side of one pass (every page
 *       of unfinished operations and the moves of its position, without the describes, one per
 *       unfinished operation whatever the history); one retention pass with a window of {@value
 *       #RETENTION_DAYS} days (about a tenth of the ended operations due), default bounds.
 *   <li>At the largest size, the hot statements again while that retention pass runs, on other
 *       connections: against their medians without it.
 *   <li>At each size, what the database did while the hot statements ran ({@link TableActivity}):
 *       shared blocks per statement, the share of HOT updates, autovacuum's runs.
 * </ol>
 *
 * Rows carry a per-run prefix and are deleted afterwards ({@link SoakLedger}); the hot statements
 * are timed by {@link SoakHotLoop}; the figures and the report are {@link SoakFigures}.
 */
final class SoakBench {

  static final int UNFINISHED = 2_000;
  static final int SAMPLES = 400;
  static final int GAUGE_SAMPLES = 20;
  static final int RETENTION_DAYS = 27;

  /** Limited (so that the allowance really checks) but never reached by the bench. */
  static final AllowancePolicy POLICY = LedgerBench.POLICY;

  private final BenchServices services;
  private final Consumer<String> progress;

  SoakBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  /**
   * @param repeats how many times the hot statements are measured at each size: the report gives
   *     their median and spread
   */
  BenchReport run(int operations, int repeats) throws Exception {
    try (Database database = services.open(8)) {
      DataSource db = database.dataSource();
      OperationsLedger ledger = new OperationsLedger(db);
      DispatchAllowance allowance = new DispatchAllowance(db, POLICY);
      LedgerStatistics gauges = new LedgerStatistics(Sql.of(db), Duration.ZERO, "bench-soak");
      SoakLedger rows = new SoakLedger(db, progress);
      try {
        progress.accept("creating " + UNFINISHED + " unfinished operations");
        rows.unfinished();
        SoakFigures figures = new SoakFigures();
        long built = 0;
        List<Integer> sizes = sizes(operations);
        progress.accept("warming up the hot statements");
        new SoakHotLoop(ledger, allowance, rows, false).medians(SAMPLES, new AtomicBoolean(false));
        for (int i = 0; i < sizes.size(); i++) {
          int size = sizes.get(i);
          progress.accept("adding ended operations: " + built + " -> " + size);
          long started = System.nanoTime();
          built = rows.addEnded(built, size);
          rows.settle();
          progress.accept(
              "ledger of "
                  + size
                  + " ended operations built in "
                  + (System.nanoTime() - started) / 1_000_000_000
                  + " s; measuring");
          SoakHotLoop loop = new SoakHotLoop(ledger, allowance, rows, false);
          List<Map<String, Double>> hot = new ArrayList<>();
          TableActivity.Snapshot beforeHot = TableActivity.now(db);
          for (int repeat = 0; repeat < repeats; repeat++) {
            hot.add(loop.medians(SAMPLES, new AtomicBoolean(false)));
          }
          figures.hotActivity(size, TableActivity.between(beforeHot, TableActivity.now(db)));
          double gaugesMs = gaugeMillis(gauges);
          long sweepStarted = System.nanoTime();
          long sweepRows = sweepPass(ledger);
          double sweepMs = Figures.round(Figures.millis(System.nanoTime() - sweepStarted));
          boolean largest = i == sizes.size() - 1;
          CompletableFuture<Map<String, Double>> during = null;
          AtomicBoolean passRunning = new AtomicBoolean(true);
          if (largest) {
            SoakHotLoop concurrent = new SoakHotLoop(ledger, allowance, rows, true);
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
            figures.duringRetention(during.get());
          }
          progress.accept(figures.add(size, hot, gaugesMs, sweepMs, sweepRows, pass));
        }
        return figures.report(operations, repeats, rows.transitions(), sizes);
      } finally {
        rows.cleanUp();
      }
    }
  }

  /** 1 %, 10 % and 100 % of N (at least one operation each). */
  static List<Integer> sizes(int operations) {
    return List.of(
        Math.max(1, operations / 100), Math.max(1, operations / 10), Math.max(1, operations));
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
}
