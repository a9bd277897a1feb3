package com.genace.ops.bench;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseUrl;
import com.genace.activities.db.Migrations;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.ObservationWaiter;
import com.genace.activities.ledger.ObservedSnapshot;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.model.NextAction;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import javax.sql.DataSource;

/**
 * {@code bench first-minute}: a burst on an empty ledger, its first seconds against the same burst
 * a minute on. The baseline is the ledger itself once PostgreSQL has seen it grow: by then
 * autovacuum has analyzed the table (it looks at each database once a minute by default), so the
 * statements run with the plans a full ledger gets.
 *
 * <ol>
 *   <li>The ledger must hold no operation. It is new (the embedded PostgreSQL, or a new database),
 *       or with {@code --emptied} the bench first makes it one just emptied: 20,000 operations
 *       inserted, analyzed, deleted and vacuumed away, as a retention pass and autovacuum leave it.
 *   <li>{@code clients} clients, one connection each, each run a delivered operation's statements
 *       through {@link OperationsLedger} in a loop, one new operation after another: create, the
 *       dispatch claim, accepted, the first poll's claim, the observed snapshot (succeeded), the
 *       delivery claim, delivered, and a poll loop's claim of due polls: {@value
 *       #STATEMENTS_PER_OPERATION} statements. The ledger grows by every operation, as under a new
 *       deployment's first burst.
 *   <li>Operations completed are counted per second, from the start to {@code after + window}.
 *       {@code ratio} = operations a second in the first {@code window} / in the {@code window}
 *       from {@code after} on.
 * </ol>
 *
 * Writes only operations whose ids start with a per-run prefix, and deletes them afterwards.
 */
final class FirstMinuteBench {

  static final int STATEMENTS_PER_OPERATION = 8;
  static final int EMPTIED_FROM = 20_000;
  static final String ACCOUNT = "bench-account-0";
  static final String TABLE = "app_generation_operations";

  private final BenchServices services;
  private final Consumer<String> progress;
  private final String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  FirstMinuteBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  BenchReport run(int clients, Duration window, Duration after, Duration warmUp, boolean emptied)
      throws InterruptedException {
    try (Database database = services.open(clients)) {
      DataSource dataSource = database.dataSource();
      long present = BenchSql.count(dataSource, "SELECT count(*) FROM " + TABLE);
      if (present > 0) {
        throw new IllegalStateException(
            "bench first-minute needs a ledger without operations; this one holds "
                + present
                + ": point DATABASE_URL at a new database");
      }
      try {
        if (emptied) {
          progress.accept("emptying a ledger of " + EMPTIED_FROM + " operations");
          empty(dataSource);
        }
        Duration warmedUp = warmUp(dataSource, clients, warmUp);
        double reltuplesAtStart = reltuples(dataSource);
        progress.accept(
            "a burst of "
                + clients
                + " clients for "
                + after.plus(window).toSeconds()
                + " s: the first "
                + window.toSeconds()
                + " s against "
                + window.toSeconds()
                + " s from "
                + after.toSeconds()
                + " s on");
        long[] boundaries = {
          0, window.toSeconds(), after.toSeconds(), after.plus(window).toSeconds()
        };
        long[] seqRows = new long[boundaries.length];
        TableActivity.Snapshot[] activity = new TableActivity.Snapshot[boundaries.length];
        AtomicLongArray perSecond =
            burst(
                new OperationsLedger(dataSource),
                clients,
                after.plus(window),
                second -> {
                  for (int b = 0; b < boundaries.length; b++) {
                    if (boundaries[b] == second) {
                      seqRows[b] = seqScanRows(dataSource);
                      activity[b] = TableActivity.now(dataSource);
                    }
                  }
                });
        double first = perSecond(perSecond, 0, window);
        double later = perSecond(perSecond, after.toSeconds(), window);
        return new BenchReport("first-minute")
            .put("clients", clients)
            .put("ledger", emptied ? "emptied" : "new")
            .put("first_operations_per_s", Figures.round(first))
            .put("later_operations_per_s", Figures.round(later))
            .put("ratio", Figures.ratio(first, later))
            .put("first_statements_per_s", Figures.round(first * STATEMENTS_PER_OPERATION))
            .put("later_statements_per_s", Figures.round(later * STATEMENTS_PER_OPERATION))
            .put("first_seq_scan_rows", seqRows[1] - seqRows[0])
            .put("later_seq_scan_rows", seqRows[3] - seqRows[2])
            .put("first_window_activity", TableActivity.between(activity[0], activity[1]))
            .put("later_window_activity", TableActivity.between(activity[2], activity[3]))
            .put("operations", total(perSecond))
            .put("reltuples_at_start", reltuplesAtStart)
            .put("last_autoanalyze_s", lastAutoanalyze(dataSource))
            .put("warm_up_s", warmedUp.toSeconds())
            .put("window_s", window.toSeconds())
            .put("after_s", after.toSeconds());
      } finally {
        cleanUp(dataSource);
      }
    }
  }

  /**
   * Runs the clients for {@code length}; operations completed in each second. {@code atSecond} is
   * called at each whole second from the start (0 included), on this thread.
   */
  private AtomicLongArray burst(
      OperationsLedger ledger, int clients, Duration length, LongConsumer atSecond)
      throws InterruptedException {
    int seconds = (int) length.toSeconds();
    AtomicLongArray completed = new AtomicLongArray(seconds + 1);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      atSecond.accept(0);
      long started = System.nanoTime();
      long deadline = started + length.toNanos();
      List<Future<?>> futures = new ArrayList<>();
      for (int client = 0; client < clients; client++) {
        int id = client;
        String ids = prefix + "c" + id + "-" + UUID.randomUUID().toString().substring(0, 4) + "-";
        futures.add(
            pool.submit(
                () -> {
                  for (long i = 0; System.nanoTime() < deadline; i++) {
                    deliver(ledger, ids + i, "bench-client-" + id);
                    long second = (System.nanoTime() - started) / 1_000_000_000L;
                    if (second <= seconds) {
                      completed.incrementAndGet((int) second);
                    }
                  }
                  return null;
                }));
      }
      for (int second = 1; second <= seconds; second++) {
        long left = started + second * 1_000_000_000L - System.nanoTime();
        if (left > 0) {
          Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
        }
        atSecond.accept(second);
        if (second % 10 == 0 && second < seconds) {
          progress.accept(second + " s: " + total(completed) + " operations");
        }
      }
      for (Future<?> future : futures) {
        future.get();
      }
      return completed;
    } catch (ExecutionException e) {
      throw new IllegalStateException("a bench client failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The same burst for {@code length} on a database of its own on the same server, dropped after:
   * the bench's JVM compiles its loop and the server warms its caches and write-ahead log files, so
   * that the first window measures the new ledger, not a cold client. None when the bench may not
   * create a database.
   */
  private Duration warmUp(DataSource dataSource, int clients, Duration length)
      throws InterruptedException {
    if (length.isZero()) {
      return Duration.ZERO;
    }
    String name = "genace_bench_warm_up_" + UUID.randomUUID().toString().substring(0, 8);
    try {
      BenchSql.autocommit(dataSource, "CREATE DATABASE " + name);
    } catch (IllegalStateException e) {
      progress.accept("no warm-up: " + e.getMessage());
      return Duration.ZERO;
    }
    try {
      DatabaseUrl server = DatabaseUrl.parse(services.database());
      DatabaseUrl url =
          new DatabaseUrl(
              server.jdbcUrl().replaceFirst("^(jdbc:postgresql://[^/]*)/[^?]*", "$1/" + name),
              server.user(),
              server.password());
      Migrations.of(url).apply();
      progress.accept("warming up for " + length.toSeconds() + " s on a database of its own");
      try (Database warm = Database.open(DatabaseConfig.of(url).withMaxPoolSize(clients))) {
        burst(new OperationsLedger(warm.dataSource()), clients, length, second -> {});
      }
      return length;
    } finally {
      BenchSql.autocommit(dataSource, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }

  /** A delivered operation's statements, from its creation to its delivery, and a poll claim. */
  private static void deliver(OperationsLedger ledger, String id, String owner) {
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"bench\"}", ACCOUNT));
    Lease dispatch = BenchClaims.lease(ledger.claimToSubmit(id, owner));
    applied(ledger.recordAccepted(dispatch, "gen_" + id), id);
    ObservationWaiter waiter = new ObservationWaiter("bench/" + id, "run", "1");
    if (ledger.polls().awaitObservation(id, waiter, true).isEmpty()) {
      throw new IllegalStateException("the bench's operation " + id + " is not observing");
    }
    ObservedSnapshot snapshot =
        ledger.recordObservedSnapshot(
            id,
            owner,
            "gen_" + id,
            RemoteStatus.SUCCEEDED,
            "{\"id\":\"gen_" + id + "\",\"status\":\"succeeded\",\"outputs\":[]}",
            null);
    if (!(snapshot instanceof ObservedSnapshot.Recorded)) {
      throw new IllegalStateException("the bench's snapshot of " + id + ": " + snapshot);
    }
    Lease delivery = BenchClaims.lease(ledger.claim(id, owner, NextAction.DELIVER));
    applied(ledger.recordDelivered(delivery, "{\"artifacts\":[]}"), id);
    // A poll loop's claim: nothing is due (each observation ended at its first poll), but the
    // statement runs as a worker's loop runs it, whatever the ledger holds.
    ledger.polls().claimDue(10, OperationsLedger.DEFAULT_LEASE_DURATION);
  }

  private static void applied(WriteResult result, String id) {
    if (result != WriteResult.APPLIED) {
      throw new IllegalStateException("the bench's write on " + id + ": " + result);
    }
  }

  /** Operations a second over {@code window} from second {@code from}. */
  private static double perSecond(AtomicLongArray completed, long from, Duration window) {
    long sum = 0;
    for (long s = from; s < from + window.toSeconds() && s < completed.length(); s++) {
      sum += completed.get((int) s);
    }
    return (double) sum / window.toSeconds();
  }

  private static long total(AtomicLongArray completed) {
    long sum = 0;
    for (int s = 0; s < completed.length(); s++) {
      sum += completed.get(s);
    }
    return sum;
  }

  /**
   * A ledger just emptied: its operations analyzed, deleted and vacuumed away. The vacuum leaves
   * the table with no pages and the statistics saying so, as autovacuum does after a retention pass
   * deleted everything.
   */
  private void empty(DataSource dataSource) {
    BenchSql.execute(
        dataSource,
        "INSERT INTO "
            + TABLE
            + " (operation_id, phase, next_action, model, request, account)"
            + " SELECT '"
            + prefix
            + "gone-' || g, 'delivered', 'none', 'image-v1', '{}'::jsonb, '"
            + ACCOUNT
            + "' FROM generate_series(1, "
            + EMPTIED_FROM
            + ") g");
    BenchSql.execute(dataSource, "ANALYZE " + TABLE);
    BenchSql.execute(
        dataSource, "DELETE FROM " + TABLE + " WHERE operation_id LIKE '" + prefix + "%'");
    vacuum(dataSource);
  }

  private static void vacuum(DataSource dataSource) {
    BenchSql.autocommit(dataSource, "VACUUM " + TABLE);
    BenchSql.autocommit(dataSource, "VACUUM app_generation_transitions");
  }

  /** Rows of the table read by sequential scans so far (the server's cumulative statistics). */
  private static long seqScanRows(DataSource dataSource) {
    return BenchSql.count(
        dataSource,
        "SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = '" + TABLE + "'::regclass");
  }

  /** PostgreSQL's row estimate for the table: -1 never counted, 0 counted empty. */
  private static double reltuples(DataSource dataSource) {
    return Double.parseDouble(
        BenchSql.text(
            dataSource, "SELECT reltuples FROM pg_class WHERE oid = '" + TABLE + "'::regclass"));
  }

  /** Seconds ago that autovacuum last analyzed the table, or null if it never did. */
  private static Double lastAutoanalyze(DataSource dataSource) {
    String ago =
        BenchSql.text(
            dataSource,
            "SELECT extract(epoch FROM clock_timestamp() - last_autoanalyze)"
                + " FROM pg_stat_user_tables WHERE relid = '"
                + TABLE
                + "'::regclass");
    return ago == null ? null : Figures.round(Double.parseDouble(ago));
  }

  private void cleanUp(DataSource dataSource) {
    try {
      BenchSql.execute(
          dataSource, "DELETE FROM " + TABLE + " WHERE operation_id LIKE '" + prefix + "%'");
    } catch (RuntimeException e) {
      progress.accept("could not remove the bench's rows (prefix " + prefix + "): " + e);
    }
  }
}
