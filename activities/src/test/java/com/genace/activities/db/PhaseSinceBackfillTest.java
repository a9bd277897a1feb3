package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.ScratchDatabase;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * V16 on a ledger of 0.1.0's schema (V15) whose rows predate V13's {@code phase_since}: every row
 * gets one, the rows that had one keep it.
 */
class PhaseSinceBackfillTest {

  @Test
  void every_row_without_a_phase_since_gets_its_updated_at_and_the_others_keep_theirs() {
    try (ScratchDatabase ledger = ScratchDatabase.create("phase_since_backfill")) {
      flyway(ledger, "15").migrate();
      ledger.execute(
          """
          INSERT INTO app_generation_operations
              (operation_id, phase, next_action, model, request, account)
          SELECT 'op-' || n, 'pending', 'dispatch', 'image-v1', '{}', 'default'
          FROM generate_series(1, 2500) AS n
          """);
      // As V13 left the rows in flight at its upgrade (the trigger fires on a phase change only).
      ledger.execute(
          "UPDATE app_generation_operations SET phase_since = NULL,"
              + " updated_at = timestamptz '2026-01-02 03:04:05+00' WHERE operation_id <> 'op-1'");
      String kept =
          ledger
              .queryOne(
                  "SELECT phase_since FROM app_generation_operations WHERE operation_id = 'op-1'")
              .orElseThrow();

      flyway(ledger, "16").migrate();

      assertThat(
              ledger.queryOne(
                  "SELECT count(*) FROM app_generation_operations WHERE phase_since IS NULL"))
          .contains("0");
      assertThat(
              ledger.queryOne(
                  "SELECT count(*) FROM app_generation_operations"
                      + " WHERE phase_since = timestamptz '2026-01-02 03:04:05+00'"))
          .contains("2499");
      assertThat(
              ledger.queryOne(
                  "SELECT phase_since FROM app_generation_operations WHERE operation_id = 'op-1'"))
          .contains(kept);
    }
  }

  private static Flyway flyway(ScratchDatabase ledger, String target) {
    return Flyway.configure()
        .configuration(Map.of("flyway.postgresql.transactional.lock", "false"))
        .dataSource(
            ledger.url().jdbcUrl(),
            ledger.url().user().orElse(null),
            ledger.url().password().orElse(null))
        .locations(Migrations.LOCATION)
        .target(target)
        .load();
  }
}
