package com.genace.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.lifecycle.RetentionReport;
import com.genace.model.NextAction;
import com.genace.testing.LedgerFixtures;
import com.genace.testing.QueryPlans;
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
 * does, batches are bounded and passes go on where the last stopped, and concurrent writers on
 * other connections neither wait for it nor leave rows behind.
 */
class LedgerRetentionTest {

  private static final Duration NINETY_DAYS = Duration.ofDays(90);
  private static final Duration ONE_HOUR = Duration.ofHours(1);
  private static final LedgerRetention.Bounds ROOMY =
      new LedgerRetention.Bounds(500, 5_000, 100, Duration.ofMinutes(1), 0);

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

  @Test
  void writers_on_other_connections_never_wait_for_a_pass_and_leave_no_row_behind()
      throws Exception {
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
        writer.get(); // a lock or statement timeout would fail here
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
