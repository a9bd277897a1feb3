package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.db.support.HotLoad;
import com.genace.activities.testing.ScratchDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A migration applied while the ledger's hot statements run, on a database of its own: the
 * production scripts first, then the fixture {@code db/fixture/live-change}, which has the shapes a
 * new migration takes on live tables (a function, a column, a NOT VALID check then its validation,
 * and an index build that lasts seconds). A report keeps a transaction open on the operations table
 * at the start, as an operator's query would.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LiveMigrationTest {

  static final int CLIENTS = 4;

  /** The fixture's index spends at least 1 ms a row: a build of 3 s or more on any machine. */
  static final int PAST_OPERATIONS = 3_000;

  static final String FIXTURE = "classpath:db/fixture/live-change";
  static final String REPORT = "long report";

  @Test
  void the_hot_statements_never_time_out_on_a_lock_while_a_migration_waits_then_builds_an_index()
      throws Exception {
    try (ScratchDatabase scratch = ScratchDatabase.create("live_migration")) {
      Migrations.of(scratch.url()).apply();
      seedPastOperations(scratch);
      List<Migrations.LockWait> waits = new CopyOnWriteArrayList<>();
      Migrations fixture =
          new Migrations(
              scratch.url(),
              Migrations.Policy.DEFAULT,
              waits::add,
              List.of(Migrations.LOCATION, FIXTURE));
      try (Database pool =
              Database.open(DatabaseConfig.of(scratch.url()).withMaxPoolSize(CLIENTS));
          HotLoad load = HotLoad.start(pool.dataSource(), CLIENTS)) {
        CompletableFuture<Integer> applied;
        try (Connection report = openReport(scratch)) {
          applied = CompletableFuture.supplyAsync(fixture::apply);
          // The ALTER TABLE queues behind the report, and the hot statements behind the ALTER,
          // until its lock timeout rolls it back; it tries again while the report stays.
          await().atMost(Duration.ofSeconds(60)).until(() -> waits.size() >= 2);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> building(scratch));
        long before = load.cycles();
        await().atMost(Duration.ofSeconds(60)).until(() -> load.cycles() >= before + 20);
        boolean stillBuilding = building(scratch);

        assertThat(applied.get(2, TimeUnit.MINUTES)).isEqualTo(3);
        assertThat(load.failures()).as("failed hot statements").isEmpty();
        assertThat(stillBuilding)
            .as("hot cycles completed while the index was being built")
            .isTrue();
      }
      assertThat(waits)
          .allSatisfy(
              wait -> {
                assertThat(wait.migration()).isEqualTo("V1000 (fixture column and check)");
                assertThat(wait.holders()).contains("(" + REPORT + ", idle in transaction for ");
              });
      assertThat(
              scratch.queryOne(
                  "SELECT indisvalid FROM pg_index"
                      + " WHERE indexrelid = 'fixture_operations_slow_key_idx'::regclass"))
          .contains("t");
      assertThat(
              scratch.queryOne(
                  "SELECT convalidated FROM pg_constraint WHERE conname = 'fixture_event_not_blank'"))
          .contains("t");
    }
  }

  @Test
  void a_migration_that_cannot_take_its_locks_gives_up_naming_the_holder_and_changes_nothing()
      throws Exception {
    try (ScratchDatabase scratch = ScratchDatabase.create("live_migration")) {
      Migrations.of(scratch.url()).apply();
      Migrations patient =
          new Migrations(
              scratch.url(),
              new Migrations.Policy(
                  Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ofSeconds(2)),
              Migrations.Listener.LOG,
              List.of(Migrations.LOCATION, FIXTURE));

      try (Connection report = openReport(scratch)) {
        assertThatThrownBy(patient::apply)
            .isInstanceOf(MigrationException.class)
            .hasMessageStartingWith(
                "V1000 (fixture column and check) could not take its locks within 2 s")
            .hasMessageContaining("(" + REPORT + ", idle in transaction for ");
      }
      assertThat(
              scratch.queryOne(
                  "SELECT count(*) FROM information_schema.columns"
                      + " WHERE column_name = 'fixture_note'"))
          .contains("0");
      assertThat(scratch.queryOne("SELECT count(*) FROM flyway_schema_history WHERE NOT success"))
          .contains("0");
    }
  }

  /** Delivered operations with a transition each: the history a live ledger has. */
  private static void seedPastOperations(ScratchDatabase scratch) {
    scratch.execute(
        """
        INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request)
        SELECT 'past-' || g, 'delivered', 'none', 'image-v1', '{}'::jsonb
        FROM generate_series(1, %d) g
        """
            .formatted(PAST_OPERATIONS));
    scratch.execute(
        """
        INSERT INTO app_generation_transitions (operation_id, revision, event, to_phase, accepted)
        SELECT operation_id, 1, 'delivered', 'delivered', true FROM app_generation_operations
        """);
    scratch.execute("ANALYZE");
  }

  /** A transaction that has read the operations table and stays open, as a report's would. */
  private static Connection openReport(ScratchDatabase scratch) throws Exception {
    Connection report = scratch.connect();
    try (Statement statement = report.createStatement()) {
      statement.execute("SET application_name = '" + REPORT + "'");
      report.setAutoCommit(false);
      statement.execute("SELECT count(*) FROM app_generation_operations");
    }
    return report;
  }

  /** Whether a CREATE INDEX on the operations table is under way in this database. */
  private static boolean building(ScratchDatabase scratch) {
    return scratch
        .queryOne(
            "SELECT count(*) FROM pg_stat_progress_create_index"
                + " WHERE datname = current_database()"
                + " AND relid = 'app_generation_operations'::regclass")
        .filter(count -> !count.equals("0"))
        .isPresent();
  }
}
