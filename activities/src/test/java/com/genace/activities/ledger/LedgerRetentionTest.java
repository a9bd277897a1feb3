package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.QueryPlans;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import com.genace.workflows.lifecycle.RetentionReport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ledger's retention on the real PostgreSQL: what is due goes with all its rows, nothing else
 * does, batches are bounded and passes go on where the last stopped, the hot statements on other
 * connections never wait for it, and late writers leave no row behind.
 */
class LedgerRetentionTest {

  private static final Duration NINETY_DAYS = Duration.ofDays(90);
  private static final Duration ONE_HOUR = Duration.ofHours(1);
  private static final LedgerRetention.Bounds ROOMY =
      new LedgerRetention.Bounds(500, 5_000, 100, Duration.ofMinutes(1), 0);

  /** Writers on connections of their own, and the rounds each one writes. */
  private static final int WRITERS = 4;

  private static final int ROUNDS = 20;

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final DataSource db = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  @Test
  void deletes_the_operations_that_ended_before_the_window_with_their_rows_and_nothing_else() {
    for (String phase : List.of("delivered", "failed", "abandoned")) {
      operation("old-" + phase, phase, 100, 5);
      evidence("old-" + phase);
      reservation("old-" + phase, "spent", 100);
      operation("recent-" + phase, phase, 10, 5);
      evidence("recent-" + phase);
      reservation("recent-" + phase, "spent", 10);
    }
    for (String phase : List.of("pending", "submitting", "observing", "delivering", "in_review")) {
      operation("unfinished-" + phase, phase, 100, 5);
      evidence("unfinished-" + phase);
      reservation("unfinished-" + phase, "released", 100);
    }

    RetentionReport report = pass(ROOMY);

    assertThat(operations())
        .containsExactlyInAnyOrder(
            "recent-delivered",
            "recent-failed",
            "recent-abandoned",
            "unfinished-pending",
            "unfinished-submitting",
            "unfinished-observing",
            "unfinished-delivering",
            "unfinished-in_review");
    for (String table :
        List.of("app_generation_transitions", "app_review_evidence", "app_dispatch_reservations")) {
      assertThat(idsIn(table)).as(table).isEqualTo(new TreeSet<>(operations()));
    }
    assertThat(count("app_generation_transitions")).isEqualTo(8 * 5);
    assertThat(report.operationsDeleted()).isEqualTo(3);
    assertThat(report.transitionsDeleted()).isEqualTo(15);
    assertThat(report.evidenceDeleted()).isEqualTo(3);
    assertThat(report.reservationsDeleted()).isEqualTo(3);
    assertThat(report.complete()).isTrue();
    assertThat(report.windowSeconds()).isEqualTo(NINETY_DAYS.toSeconds());
  }

  @Test
  void an_operation_whose_reservation_the_allowance_still_counts_is_kept() {
    operation("in-flight", "delivered", 100, 2);
    reservation("in-flight", "in_flight", 100);
    operation("in-window", "failed", 100, 2);
    reservation("in-window", "released", 100);
    reservation("in-window", "spent", 0); // reserved minutes ago
    operation("settled-long-ago", "delivered", 100, 2);
    reservation("settled-long-ago", "spent", 100);

    RetentionReport report = pass(ONE_HOUR.multipliedBy(3), ROOMY);

    assertThat(operations()).containsExactlyInAnyOrder("in-flight", "in-window");
    assertThat(idsIn("app_dispatch_reservations")).containsExactly("in-flight", "in-window");
    assertThat(idsIn("app_generation_transitions")).containsExactly("in-flight", "in-window");
    assertThat(report.keptForAllowance()).isEqualTo(2);
    assertThat(report.operationsDeleted()).isEqualTo(1);
  }

  @Test
  void a_pass_is_bounded_in_batches_and_the_next_pass_goes_on_where_it_stopped() {
    bulkEnded("bulk-", 1_200, 100, 7);
    // One operation dispatched 120 times (rate limited), a reservation each.
    for (int i = 0; i < 120; i++) {
      reservation("bulk-7", "released", 100);
    }
    operation("recent", "delivered", 1, 7);
    LedgerRetention.Bounds small = new LedgerRetention.Bounds(100, 50, 3, Duration.ofMinutes(1), 0);

    List<RetentionReport> passes = new ArrayList<>();
    do {
      passes.add(pass(small));
      assertThat(passes).hasSizeLessThan(10);
    } while (!passes.get(passes.size() - 1).complete());

    assertThat(passes.get(0).operationsDeleted()).isEqualTo(300);
    assertThat(passes.get(0).transitionsDeleted()).isEqualTo(300 * 7);
    assertThat(passes.get(0).complete()).isFalse();
    assertThat(passes).allSatisfy(p -> assertThat(p.batches()).isLessThanOrEqualTo(3));
    assertThat(passes.stream().mapToLong(RetentionReport::operationsDeleted).sum())
        .isEqualTo(1_200);
    assertThat(operations()).containsExactly("recent");
    assertThat(count("app_generation_transitions")).isEqualTo(7);
    assertThat(count("app_dispatch_reservations")).isZero();
    assertThat(passes.stream().mapToLong(RetentionReport::reservationsDeleted).sum())
        .isEqualTo(120);
  }

  @Test
  void the_due_batch_is_a_range_scan_of_the_ended_index_whatever_the_history() {
    // All due, with ten reservations each: where an EXISTS would hash the whole reservations table.
    bulkEnded("plan-", 20_000, 100, 1);
    update(
        """
        INSERT INTO app_dispatch_reservations (operation_id, account, credits, state, reserved_at)
        SELECT 'plan-' || (g % 20000), 'default', 1, 'spent', clock_timestamp() - interval '100 days'
        FROM generate_series(0, 199999) g
        """);
    QueryPlans.execute(
        db, "ANALYZE app_generation_operations", "ANALYZE app_dispatch_reservations");

    List<String> plan =
        QueryPlans.explain(
            db,
            LedgerRetention.DUE.sql(),
            s -> {
              s.setObject(1, java.time.OffsetDateTime.parse("1970-01-01T00:00:00Z"));
              s.setString(2, "");
              s.setString(3, "7776000 seconds");
              s.setInt(4, 500);
              s.setString(5, "3600 seconds");
            });

    assertThat(String.join("\n", plan))
        .contains("app_generation_operations_ended_idx")
        .contains("Index Cond: ((ROW(phase_since, operation_id) > ROW(")
        .containsPattern("Index Cond: .*phase_since < \\(statement_timestamp\\(\\)")
        .doesNotContain("Seq Scan on app_generation_operations")
        .contains("on app_dispatch_reservations_operation_idx")
        .doesNotContain("Seq Scan on app_dispatch_reservations")
        .doesNotContain("hashed SubPlan");
  }

  /**
   * A pass held inside its delete transaction: this test locks the evidence row of one operation of
   * the batch, so the pass, which has deleted (and so locked) every operation of the batch, waits
   * to delete that evidence. Meanwhile writers on other connections claim, renew and release
   * unfinished operations and create new ones, on a pool whose {@code lock_timeout} fails any
   * statement that waits for a lock: whatever the pass holds, it holds until they are done, so a
   * writer that waited for it would fail, however short the wait would have been otherwise. A
   * cancel noted on an operation the pass is deleting does wait for it (it locks that row against
   * the deletion), and then writes nothing.
   */
  @Test
  void claims_renewals_releases_and_creations_on_other_connections_never_wait_for_a_pass()
      throws Exception {
    bulkEnded("ended-", 300, 100, 3);
    evidence("ended-0");
    for (int i = 0; i < WRITERS; i++) {
      fixtures.observing("live-" + i, "gen_live_" + i);
    }
    ExecutorService threads = Executors.newFixedThreadPool(WRITERS + 2);
    try (Database patient = pool(Duration.ofMinutes(2));
        Database impatient = pool(Duration.ofSeconds(1));
        Connection gate = db.getConnection()) {
      gate.setAutoCommit(false);
      int gatePid = lockEvidence(gate, "ended-0");
      OperationsLedger retention = new OperationsLedger(patient.dataSource());
      Future<RetentionReport> pass =
          threads.submit(() -> retention.retention().pass(NINETY_DAYS, ONE_HOUR, ROOMY, () -> {}));
      await().atMost(Duration.ofMinutes(1)).until(() -> waitingFor(gatePid).size() == 1);
      int passPid = waitingFor(gatePid).get(0);
      assertThat(
              scalar(
                  "SELECT count(*) FROM (SELECT 1 FROM app_generation_operations"
                      + " WHERE operation_id LIKE 'ended-%' FOR UPDATE SKIP LOCKED) free"))
          .as("operations of the batch not locked by the pass")
          .isZero();

      OperationsLedger hot = new OperationsLedger(impatient.dataSource());
      List<Future<Integer>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        String id = "live-" + w;
        String owner = "writer-" + w;
        writers.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < ROUNDS; i++) {
                    ClaimResult claim = hot.claim(id, owner, NextAction.OBSERVE);
                    assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
                    Lease lease = ((ClaimResult.Acquired) claim).lease();
                    assertThat(hot.renew(lease)).isInstanceOf(RenewResult.Renewed.class);
                    assertThat(hot.release(lease)).isEqualTo(WriteResult.APPLIED);
                    assertThat(
                            hot.create(
                                new NewOperation(owner + "-new-" + i, "image-v1", "{\"p\": 1}")))
                        .isTrue();
                  }
                  return ROUNDS;
                }));
      }
      for (Future<Integer> writer : writers) {
        assertThat(writer.get()).isEqualTo(ROUNDS); // a statement that waited fails here
      }

      Future<Boolean> note =
          threads.submit(() -> retention.noteCancelAfterEnd("ended-1", "w", "someone", "late"));
      await().atMost(Duration.ofMinutes(1)).until(() -> waitingFor(passPid).size() == 1);
      gate.rollback();

      assertThat(pass.get().operationsDeleted()).isEqualTo(300);
      assertThat(note.get()).as("a note on an operation deleted meanwhile").isFalse();
    } finally {
      threads.shutdownNow();
    }
    assertThat(operations())
        .hasSize(WRITERS + WRITERS * ROUNDS)
        .allMatch(id -> id.startsWith("live-") || id.startsWith("writer-"));
    assertThat(
            scalar(
                "SELECT count(*) FROM app_generation_transitions t WHERE NOT EXISTS (SELECT 1 FROM"
                    + " app_generation_operations o WHERE o.operation_id = t.operation_id)"))
        .isZero();
  }

  /**
   * A pool of its own on the test database, whose statements wait for a lock up to {@code lock}.
   */
  private static Database pool(Duration lock) {
    return Database.open(
        new DatabaseConfig(
            TestDatabase.url(), WRITERS + 2, Duration.ofSeconds(5), lock, lock.plusMinutes(1)));
  }

  /** Locks the operation's evidence row in {@code gate}'s transaction; the gate's backend pid. */
  private static int lockEvidence(Connection gate, String operationId) throws SQLException {
    try (PreparedStatement s =
        gate.prepareStatement(
            "SELECT pg_backend_pid() FROM app_review_evidence WHERE operation_id = ? FOR UPDATE")) {
      s.setString(1, operationId);
      try (ResultSet rs = s.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getInt(1);
      }
    }
  }

  /** The backends waiting for a lock that backend {@code pid} holds. */
  private List<Integer> waitingFor(int pid) {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))")) {
      s.setInt(1, pid);
      try (ResultSet rs = s.executeQuery()) {
        List<Integer> pids = new ArrayList<>();
        while (rs.next()) {
          pids.add(rs.getInt(1));
        }
        return pids;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Writers on other connections while passes run, over and over: a cancel noted on an ended
   * operation (which may wait for the batch that deletes it, see above) is never left behind
   * without its operation, and the hot statements go on.
   */
  @Test
  void writers_on_other_connections_leave_no_row_behind_a_pass() throws Exception {
    bulkEnded("ended-", 3_000, 100, 3);
    for (int i = 0; i < 8; i++) {
      fixtures.observing("live-" + i, "gen_live_" + i);
    }
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong hotStatements = new AtomicLong();
    AtomicLong notes = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(5);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        writers.add(
            pool.submit(
                () -> {
                  for (long i = 0; running.get(); i++) {
                    if (writer == 0) {
                      // A cancel asked of an ended operation keeps a history row: never left
                      // behind without its operation.
                      if (ledger.noteCancelAfterEnd(
                          "ended-" + (i % 3_000), "w", "someone", "late")) {
                        notes.incrementAndGet();
                      }
                      continue;
                    }
                    String id = "live-" + (i % 8);
                    ClaimResult claim =
                        ledger.claim(id, "writer-" + writer + "-" + i, NextAction.OBSERVE);
                    if (claim instanceof ClaimResult.Acquired acquired) {
                      ledger.renew(acquired.lease());
                      ledger.release(acquired.lease());
                    }
                    hotStatements.incrementAndGet();
                  }
                  return null;
                }));
      }
      List<RetentionReport> passes = new ArrayList<>();
      do {
        passes.add(pass(new LedgerRetention.Bounds(200, 100, 5, Duration.ofMinutes(1), 1.0)));
      } while (!passes.get(passes.size() - 1).complete());
      running.set(false);
      for (Future<?> writer : writers) {
        writer.get(); // any error, a lock or statement timeout included, fails here
      }
    } finally {
      running.set(false);
      pool.shutdownNow();
    }

    assertThat(hotStatements.get()).isPositive();
    assertThat(notes.get()).isPositive();
    assertThat(operations()).hasSize(8).allMatch(id -> id.startsWith("live-"));
    assertThat(
            scalar(
                "SELECT count(*) FROM app_generation_transitions t WHERE NOT EXISTS (SELECT 1 FROM"
                    + " app_generation_operations o WHERE o.operation_id = t.operation_id)"))
        .isZero();
  }

  private RetentionReport pass(LedgerRetention.Bounds bounds) {
    return pass(ONE_HOUR, bounds);
  }

  private RetentionReport pass(Duration allowanceWindow, LedgerRetention.Bounds bounds) {
    return ledger.retention().pass(NINETY_DAYS, allowanceWindow, bounds, () -> {});
  }

  /** One operation in {@code phase} since {@code daysAgo}, with {@code transitions} rows. */
  private void operation(String id, String phase, int daysAgo, int transitions) {
    String action =
        switch (phase) {
          case "pending", "submitting" -> "dispatch";
          case "observing" -> "observe";
          case "delivering" -> "deliver";
          case "in_review" -> "reconcile";
          default -> "none";
        };
    update(
        """
        INSERT INTO app_generation_operations
            (operation_id, phase, next_action, model, request, created_at, phase_since, updated_at)
        VALUES (?, ?, ?, 'image-v1', '{}'::jsonb,
                clock_timestamp() - make_interval(days => ?) - interval '1 hour',
                clock_timestamp() - make_interval(days => ?),
                clock_timestamp() - make_interval(days => ?))
        """,
        id,
        phase,
        action,
        daysAgo,
        daysAgo,
        daysAgo);
    update(
        """
        INSERT INTO app_generation_transitions (operation_id, revision, event, accepted)
        SELECT ?, g, 'bench', true FROM generate_series(1, ?) g
        """,
        id,
        transitions);
  }

  /** {@code n} delivered operations ended {@code daysAgo}, each with {@code transitions} rows. */
  private void bulkEnded(String prefix, int n, int daysAgo, int transitions) {
    update(
        """
        INSERT INTO app_generation_operations
            (operation_id, phase, next_action, model, request, created_at, phase_since, updated_at)
        SELECT ? || g, 'delivered', 'none', 'image-v1', '{}'::jsonb,
               clock_timestamp() - make_interval(days => ?) - g * interval '1 second',
               clock_timestamp() - make_interval(days => ?) + g * interval '1 ms',
               clock_timestamp() - make_interval(days => ?)
        FROM generate_series(0, ? - 1) g
        """,
        prefix,
        daysAgo,
        daysAgo,
        daysAgo,
        n);
    update(
        """
        INSERT INTO app_generation_transitions (operation_id, revision, event, accepted)
        SELECT ? || g, r, 'bench', true
        FROM generate_series(0, ? - 1) g CROSS JOIN generate_series(1, ?) r
        """,
        prefix,
        n,
        transitions);
  }

  private void evidence(String id) {
    update(
        "INSERT INTO app_review_evidence (operation_id, evidence, summary) VALUES (?, '{}', 's')",
        id);
  }

  private void reservation(String id, String state, int daysAgo) {
    update(
        """
        INSERT INTO app_dispatch_reservations (operation_id, account, credits, state, reserved_at)
        VALUES (?, 'default', 1, ?, clock_timestamp() - make_interval(days => ?))
        """,
        id,
        state,
        daysAgo);
  }

  private List<String> operations() {
    return strings("SELECT operation_id FROM app_generation_operations ORDER BY 1");
  }

  private Set<String> idsIn(String table) {
    return new TreeSet<>(strings("SELECT DISTINCT operation_id FROM " + table));
  }

  private long count(String table) {
    return scalar("SELECT count(*) FROM " + table);
  }

  private long scalar(String sql) {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private List<String> strings(String sql) {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> values = new ArrayList<>();
      while (rs.next()) {
        values.add(rs.getString(1));
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void update(String sql, Object... values) {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < values.length; i++) {
        s.setObject(i + 1, values[i]);
      }
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
