package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.db.SqlStatement;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.QueryPlans;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With a long history (30k finished operations and their transitions) and a little work in flight,
 * the statements that run on timers or on every operation plan no sequential scan of the big
 * tables: their cost follows the work in flight, not the history.
 */
@ExtendWith(DatabaseExtension.class)
class ScanFreeStatementsTest {

  static final int HISTORY = 30_000;

  private DataSource db;

  @BeforeEach
  void setUp(DataSource db) {
    this.db = db;
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " created_at) SELECT 'done-' || i, 'delivered', 'none', 'image-v1', '{}',"
            + " clock_timestamp() - i * interval '1 second' FROM generate_series(1, "
            + HISTORY
            + ") i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " review_opened_at) SELECT 'review-' || i, 'in_review', 'reconcile', 'image-v1',"
            + " '{}', clock_timestamp() FROM generate_series(1, 20) i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " remote_job_id) SELECT 'live-' || i, 'observing', 'observe', 'image-v1', '{}',"
            + " 'gen_' || i FROM generate_series(1, 50) i",
        "INSERT INTO app_generation_transitions (operation_id, revision, event, to_phase, accepted)"
            + " SELECT 'done-' || i, 0, 'created', 'pending', true FROM generate_series(1, "
            + HISTORY
            + ") i",
        "ANALYZE app_generation_operations",
        "ANALYZE app_generation_transitions");
  }

  private static void assertNoSeqScanOfBigTables(List<String> plan) {
    assertThat(String.join("\n", plan))
        .doesNotContain("Seq Scan on app_generation_operations")
        .doesNotContain("Seq Scan on app_generation_transitions")
        .doesNotContain("Seq Scan on app_dispatch_reservations");
  }

  @Test
  void the_fleet_figures_read_only_unfinished_operations() {
    List<String> plan =
        QueryPlans.explain(
            db,
            LedgerStatistics.READ.sql(),
            s -> {
              s.setString(1, "worker-a");
              s.setString(2, "10000 milliseconds");
            });

    assertNoSeqScanOfBigTables(plan);
    assertThat(String.join("\n", plan)).contains("app_generation_operations_unfinished_idx");
    LedgerStatistics.Snapshot figures =
        new LedgerStatistics(
                com.genace.activities.db.Sql.of(db), Duration.ofSeconds(10), "worker-a")
            .read();
    assertThat(figures.openReviews()).isEqualTo(20);
    assertThat(figures.oldestObservationAgeSeconds()).isBetween(0.0, 600.0);
    assertThat(figures.oldestDeliveryAgeSeconds()).isZero();
    assertThat(figures.phases())
        .containsEntry(com.genace.client.model.Phase.OBSERVING, 50L)
        .doesNotContainKey(com.genace.client.model.Phase.DELIVERED);
  }

  @Test
  void counting_an_unfinished_phase_reads_only_the_unfinished_index() {
    List<String> plan =
        QueryPlans.explain(
            db, OperationRecords.COUNT_UNFINISHED.sql(), s -> s.setString(1, "in_review"));

    assertNoSeqScanOfBigTables(plan);
    assertThat(String.join("\n", plan)).contains("app_generation_operations_unfinished_idx");
    OperationsLedger ledger = new OperationsLedger(db);
    assertThat(ledger.countUnfinished(com.genace.client.model.Phase.IN_REVIEW)).isEqualTo(20);
    assertThat(ledger.countUnfinished(com.genace.client.model.Phase.PENDING)).isZero();
    assertThatThrownBy(() -> ledger.countUnfinished(com.genace.client.model.Phase.DELIVERED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("phase delivered is terminal");
  }

  @Test
  void each_page_of_the_orphan_sweep_is_a_range_scan_of_the_unfinished_index() {
    for (SweepPosition after :
        List.of(
            SweepPosition.START,
            new SweepPosition("in_review", java.time.Instant.now().minusSeconds(60)))) {
      List<String> plan =
          QueryPlans.explain(
              db,
              LifecycleWrites.LIST_UNFINISHED_AFTER.sql(),
              s -> {
                s.setString(1, after.phase());
                s.setObject(2, after.createdAt().atOffset(java.time.ZoneOffset.UTC));
                s.setInt(3, 500);
              });

      assertNoSeqScanOfBigTables(plan);
      // The scan starts at the position (a condition on the index, not a filter) and stops after
      // the page: no sort of all the unfinished operations.
      assertThat(String.join("\n", plan))
          .contains("Index Scan using app_generation_operations_unfinished_idx")
          .contains("Index Cond: (ROW(phase, created_at) > ROW(")
          .doesNotContain("Sort")
          .doesNotContain("Filter")
          .startsWith("Limit");
    }
  }

  @Test
  void a_page_stays_a_range_scan_with_a_large_backlog_and_as_a_generic_plan() throws Exception {
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " review_opened_at, created_at) SELECT 'old-review-' || i, 'in_review', 'reconcile',"
            + " 'image-v1', '{}', clock_timestamp(),"
            + " clock_timestamp() - interval '30 days' + i * interval '1 second'"
            + " FROM generate_series(1, 12000) i",
        "ANALYZE app_generation_operations");
    SweepPosition middle =
        new OperationsLedger(db).unfinishedAfter(SweepPosition.START, 6000).get(5999).position();
    // JDBC switches a statement to a server-prepared one after a few runs; PostgreSQL may then
    // keep a generic plan, made without the values: it must walk the index too.
    String numbered = LifecycleWrites.LIST_UNFINISHED_AFTER.sql();
    for (int n = 1; numbered.contains("?"); n++) {
      numbered = numbered.replaceFirst("\\?", "\\$" + n);
    }
    for (String cacheMode : List.of("force_custom_plan", "force_generic_plan")) {
      List<String> plan = new java.util.ArrayList<>();
      try (java.sql.Connection connection = db.getConnection();
          java.sql.Statement statement = connection.createStatement()) {
        try {
          statement.execute("SET plan_cache_mode = " + cacheMode);
          statement.execute("PREPARE sweep_page AS " + numbered);
          try (java.sql.ResultSet rs =
              statement.executeQuery(
                  "EXPLAIN EXECUTE sweep_page('"
                      + middle.phase()
                      + "', '"
                      + middle.createdAt()
                      + "', 500)")) {
            while (rs.next()) {
              plan.add(rs.getString(1));
            }
          }
        } finally {
          statement.execute("DEALLOCATE ALL");
          statement.execute("RESET plan_cache_mode");
        }
      }

      assertNoSeqScanOfBigTables(plan);
      assertThat(String.join("\n", plan))
          .as(cacheMode)
          .contains("Index Scan using app_generation_operations_unfinished_idx")
          .contains("Index Cond: (ROW(phase, created_at) > ROW(")
          .doesNotContain("Sort");
    }
  }

  @Test
  void the_pages_walk_every_unfinished_operation_once_in_order() {
    OperationsLedger ledger = new OperationsLedger(db);
    List<String> walked = new java.util.ArrayList<>();
    SweepPosition position = SweepPosition.START;
    for (List<OperationsLedger.Unfinished> page = ledger.unfinishedAfter(position, 7);
        !page.isEmpty();
        page = ledger.unfinishedAfter(position, 7)) {
      page.forEach(u -> walked.add(u.operationId()));
      position = page.get(page.size() - 1).position();
    }

    assertThat(walked).hasSize(70).doesNotHaveDuplicates();
    assertThat(walked.subList(0, 20)).allMatch(id -> id.startsWith("review-"));
    assertThat(walked.subList(20, 70)).allMatch(id -> id.startsWith("live-"));
  }

  @Test
  void claims_and_fenced_writes_find_their_row_by_key() {
    assertNoSeqScanOfBigTables(
        QueryPlans.explain(
            db,
            Claims.CLAIM.sql(),
            s -> {
              s.setString(1, "live-1");
              s.setString(2, "worker-a");
              s.setString(3, "observe");
              s.setString(4, "45 seconds");
            }));
    assertNoSeqScanOfBigTables(
        QueryPlans.explain(
            db,
            Claims.CLAIM_TO_POST.sql(),
            s -> {
              s.setString(1, "live-1");
              s.setString(2, "worker-a");
              s.setString(3, "dispatch");
              s.setString(4, "45 seconds");
            }));
    assertNoSeqScanOfBigTables(
        QueryPlans.explain(
            db,
            LifecycleWrites.REQUEST_CANCEL.sql(),
            s -> {
              s.setString(1, "live-1");
              s.setString(2, "shop");
              s.setString(3, "customer left");
              s.setNull(4, java.sql.Types.BOOLEAN);
            }));
    assertNoSeqScanOfBigTables(
        QueryPlans.explain(
            db,
            RemoteJobWrites.RECORD_SNAPSHOT.sql(),
            s -> {
              s.setString(1, "live-1");
              s.setString(2, "worker-a");
              s.setLong(3, 1);
              s.setString(4, "{}");
              s.setString(5, "running");
              s.setInt(6, 1);
              s.setString(7, "{}");
              s.setString(8, null);
            }));
    assertNoSeqScanOfBigTables(
        QueryPlans.explain(
            db,
            ObservationWrites.RECORD_OBSERVED_SNAPSHOT.sql(),
            s -> {
              s.setString(1, "live-1");
              s.setString(2, "worker-a");
              s.setString(3, "gen_1");
              s.setString(4, "{}");
              s.setString(5, "running");
              s.setInt(6, 1);
              s.setString(7, "{}");
              s.setString(8, null);
            }));
  }

  @Test
  void the_waiting_too_long_report_and_the_delivery_failure_find_their_row_by_key() {
    List<String> report =
        QueryPlans.explain(
            db,
            WaitingTooLong.REPORT.sql(),
            s -> {
              s.setString(1, "live-1");
              s.setString(2, "observing");
              s.setString(3, "21600 seconds");
            });
    List<String> failed =
        QueryPlans.explain(
            db,
            WaitingTooLong.DELIVERY_FAILED.sql(),
            s -> {
              s.setString(1, "artifact mismatch");
              s.setString(2, "live-1");
              s.setString(3, "worker-a");
              s.setLong(4, 3);
            });

    for (List<String> plan : List.of(report, failed)) {
      assertNoSeqScanOfBigTables(plan);
      assertThat(String.join("\n", plan)).contains("app_generation_operations_pkey");
    }
  }

  @Test
  void the_poll_claim_reads_only_scheduled_operations() {
    // Most of the schedule is not due yet: the scan must stop at the due entries, not filter all.
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp() + interval '1 hour'"
            + " WHERE operation_id LIKE 'done-%'",
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp()"
            + " WHERE operation_id LIKE 'live-%'",
        "ANALYZE app_generation_operations");

    List<String> plan =
        QueryPlans.explain(
            db,
            PollSchedule.CLAIM_DUE.sql(),
            s -> {
              s.setInt(1, 100);
              s.setString(2, "45 seconds");
            });

    assertNoSeqScanOfBigTables(plan);
    assertThat(String.join("\n", plan))
        .contains("app_generation_operations_poll_due_idx")
        .contains("Index Cond: (poll_due_at <= statement_timestamp())");
  }

  @Test
  void the_batched_reschedule_finds_each_row_by_its_key() {
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp() + interval '1 hour'"
            + " WHERE operation_id LIKE 'done-%'",
        "ANALYZE app_generation_operations");
    Object[] ids = new Object[PollSchedule.MAX_RESCHEDULES];
    Object[] tokens = new Object[ids.length];
    Object[] delays = new Object[ids.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = "live-" + i;
      tokens[i] = "2026-12-01T08:00:00.123456Z";
      delays[i] = "15000 milliseconds";
    }

    List<String> plan =
        QueryPlans.explain(
            db,
            PollSchedule.RESCHEDULE_MANY.sql(),
            s -> {
              s.setArray(1, s.getConnection().createArrayOf("text", ids));
              s.setArray(2, s.getConnection().createArrayOf("text", tokens));
              s.setArray(3, s.getConnection().createArrayOf("text", delays));
              s.setArray(4, s.getConnection().createArrayOf("text", ids));
            });

    assertNoSeqScanOfBigTables(plan);
    assertThat(String.join("\n", plan)).contains("app_generation_operations_pkey");
  }

  @Test
  void the_fleet_figures_count_the_polls_no_loop_has_claimed_for_five_seconds() {
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp() - interval '1 minute'"
            + " WHERE operation_id IN ('live-1', 'live-2', 'live-3')",
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp()"
            + " WHERE operation_id = 'live-4'",
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp() + interval '1 minute'"
            + " WHERE operation_id = 'live-5'");

    LedgerStatistics.Snapshot figures =
        new LedgerStatistics(
                com.genace.activities.db.Sql.of(db), Duration.ofSeconds(10), "worker-a")
            .read();

    assertThat(figures.pollsOverdue()).isEqualTo(3);
    assertThat(figures.oldestPollOverdueSeconds()).isBetween(59.0, 600.0);
  }

  @Test
  void listing_an_unfinished_phase_or_the_newest_operations_walks_an_index() {
    assertNoSeqScanOfBigTables(
        QueryPlans.explain(
            db,
            OperationRecords.LIST_UNFINISHED_PHASE.sql(),
            s -> {
              s.setString(1, "in_review");
              s.setString(2, null);
              s.setString(3, "0 seconds");
              s.setString(4, null);
              s.setString(5, null);
              s.setInt(6, 100);
            }));
    for (SqlStatement list : List.of(OperationRecords.LIST, OperationRecords.LIST_OLDEST)) {
      assertNoSeqScanOfBigTables(
          QueryPlans.explain(
              db,
              list.sql(),
              s -> {
                s.setString(1, null);
                s.setString(2, "1 hour");
                s.setString(3, "done-500");
                s.setString(4, "done-500");
                s.setInt(5, 100);
              }));
    }
  }

  @Test
  void listing_one_account_walks_its_own_index() {
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET account = 'acme' WHERE operation_id LIKE 'live-%'",
        "ANALYZE app_generation_operations");
    List<String> plan =
        QueryPlans.explain(
            db,
            OperationRecords.LIST.sql(),
            s -> {
              s.setString(1, "acme");
              s.setString(2, "0 seconds");
              s.setString(3, null);
              s.setString(4, null);
              s.setInt(5, 100);
            });
    assertNoSeqScanOfBigTables(plan);
    assertThat(String.join("\n", plan)).contains("app_generation_operations_account_idx");
  }

  @Test
  void the_spend_reads_the_window_of_committed_credits_and_the_open_reviews_alone() {
    // Months of committed credits behind the window, a little of them in it.
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET credits = 2, credits_committed_at = clock_timestamp()"
            + " - interval '1 day' - (random() * interval '90 days') WHERE operation_id LIKE"
            + " 'done-%'",
        "UPDATE app_generation_operations SET credits = 2, credits_committed_at = clock_timestamp()"
            + " WHERE operation_id LIKE 'live-%'",
        "UPDATE app_generation_operations SET dispatch_outcome = 'unknown', submitting_since ="
            + " clock_timestamp() WHERE operation_id LIKE 'review-%'",
        "ANALYZE app_generation_operations");
    for (String grouping : List.of("account", "model", "day")) {
      List<String> committed =
          QueryPlans.explain(
              db,
              SpendReport.COMMITTED.sql(),
              s -> {
                s.setString(1, grouping);
                s.setString(2, "24 hours");
              });
      assertNoSeqScanOfBigTables(committed);
      assertThat(String.join("\n", committed))
          .contains("app_generation_operations_credits_committed_idx");
      List<String> possibly =
          QueryPlans.explain(
              db,
              SpendReport.POSSIBLY_SPENT.sql(),
              s -> {
                s.setString(1, grouping);
                s.setString(2, "24 hours");
                s.setString(3, "{\"image-v1\": 2}");
                s.setLong(4, 1);
              });
      assertNoSeqScanOfBigTables(possibly);
      assertThat(String.join("\n", possibly)).contains("app_generation_operations_unfinished_idx");
    }
  }

  @Test
  void a_bulk_selection_and_its_count_walk_one_phase_of_the_unfinished_index() {
    java.time.OffsetDateTime cursor = java.time.OffsetDateTime.now().minusMinutes(5);
    // With an account, the planner may prefer the account's index: an index either way.
    for (String account : java.util.Arrays.asList(null, "acme")) {
      for (boolean past : List.of(false, true)) {
        List<String> page =
            QueryPlans.explain(
                db,
                OperationSelections.SELECT_PAGE.sql(),
                s -> {
                  s.setString(1, "in_review");
                  s.setObject(2, null, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                  s.setObject(3, cursor.plusMinutes(10));
                  s.setString(4, "3600 seconds");
                  s.setString(5, "post_outcome_unknown");
                  s.setString(6, "post_outcome_unknown");
                  s.setString(7, account);
                  s.setString(8, null);
                  s.setBoolean(9, true);
                  s.setString(10, past ? "review-3" : null);
                  s.setObject(11, past ? cursor : null, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                  s.setObject(12, past ? cursor : null, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                  s.setString(13, past ? "review-3" : null);
                  s.setInt(14, 100);
                });
        assertNoSeqScanOfBigTables(page);
        assertThat(String.join("\n", page))
            .contains(account == null ? "app_generation_operations_unfinished_idx" : "Index Scan");
      }
    }
    List<String> count =
        QueryPlans.explain(
            db,
            OperationSelections.COUNT.sql(),
            s -> {
              s.setString(1, "observing");
              s.setObject(2, cursor);
              s.setObject(3, null, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
              s.setString(4, "0 seconds");
              s.setString(5, null);
              s.setString(6, null);
              s.setString(7, null);
              s.setString(8, "image-v1");
              s.setBoolean(9, false);
            });
    assertNoSeqScanOfBigTables(count);
    assertThat(String.join("\n", count)).contains("app_generation_operations_unfinished_idx");
  }

  @Test
  void a_bulk_selection_pages_through_its_rows_once_oldest_first() {
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET review_reason = 'post_outcome_unknown',"
            + " created_at = now() - interval '1 hour'"
            + " WHERE operation_id LIKE 'review-%'",
        "UPDATE app_generation_operations SET review_reason = 'workflow_closed'"
            + " WHERE operation_id IN ('review-1', 'review-2')");
    OperationsLedger ledger = new OperationsLedger(db);
    OperationSelection lost =
        new OperationSelection(
            com.genace.client.model.Phase.IN_REVIEW,
            java.util.Optional.of("post_outcome_unknown"),
            java.util.Optional.empty(),
            java.util.Optional.of("image-v1"),
            Duration.ofMinutes(30),
            java.util.Optional.empty(),
            java.util.Optional.empty(),
            false);
    List<String> walked = new java.util.ArrayList<>();
    java.util.Optional<OperationSelection.After> after = java.util.Optional.empty();
    for (List<OperationRow> page = ledger.selectPage(lost, after, 5);
        !page.isEmpty();
        page = ledger.selectPage(lost, after, 5)) {
      page.forEach(row -> walked.add(row.operationId()));
      after = java.util.Optional.of(OperationSelection.After.of(page.get(page.size() - 1)));
    }

    // All 20 reviews share one creation time: the operation id orders them, and none is lost.
    assertThat(walked).hasSize(18).doesNotHaveDuplicates().doesNotContain("review-1", "review-2");
    assertThat(ledger.countSelection(lost)).isEqualTo(18);
    assertThat(ledger.countSelection(lost.inPhase(com.genace.client.model.Phase.OBSERVING)))
        .isZero();
    assertThat(
            ledger.countSelection(
                new OperationSelection(
                    com.genace.client.model.Phase.IN_REVIEW,
                    java.util.Optional.empty(),
                    java.util.Optional.empty(),
                    java.util.Optional.empty(),
                    Duration.ofHours(2),
                    java.util.Optional.empty(),
                    java.util.Optional.empty(),
                    false)))
        .isZero();
  }
}
