package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.ScratchDatabase;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * A concurrent index build that fails leaves an INVALID index of its name. The script that failed
 * is run again, by the next run of {@link Migrations}, and replaces it.
 */
class FailedIndexBuildTest {

  @Test
  void v10_replaces_the_invalid_index_a_failed_build_of_it_left() {
    try (ScratchDatabase scratch = ScratchDatabase.create("failed_index")) {
      Flyway.configure()
          .configuration(Map.of("flyway.postgresql.transactional.lock", "false"))
          .dataSource(
              scratch.url().jdbcUrl(),
              scratch.url().user().orElse(null),
              scratch.url().password().orElse(null))
          .locations(Migrations.LOCATION)
          .target("8")
          .load()
          .migrate();
      insertOperations(scratch, "same-account-1", "same-account-2");
      // What a build that failed half way leaves: a unique build fails on the duplicates.
      assertThatThrownBy(
              () ->
                  scratch.execute(
                      "CREATE UNIQUE INDEX CONCURRENTLY app_generation_operations_account_idx"
                          + " ON app_generation_operations (account)"))
          .hasMessageContaining("could not create unique index");
      assertThat(validity(scratch, "app_generation_operations_account_idx")).contains("f");

      int applied = Migrations.of(scratch.url()).apply();

      assertThat(applied).isPositive();
      assertThat(validity(scratch, "app_generation_operations_account_idx")).contains("t");
      assertThat(
              scratch.queryOne(
                  "SELECT pg_get_indexdef('app_generation_operations_account_idx'::regclass)"))
          .hasValueSatisfying(
              definition ->
                  assertThat(definition)
                      .startsWith("CREATE INDEX ")
                      .endsWith("USING btree (account, created_at)"));
    }
  }

  @Test
  void a_build_that_failed_in_a_run_is_not_recorded_as_failed_and_the_next_run_completes_it() {
    try (ScratchDatabase scratch = ScratchDatabase.create("failed_index")) {
      Migrations.of(scratch.url()).apply();
      insertOperations(scratch, "same-model-1", "same-model-2");
      Migrations withFixture =
          new Migrations(
              scratch.url(),
              Migrations.Policy.DEFAULT,
              Migrations.Listener.LOG,
              List.of(Migrations.LOCATION, "classpath:db/fixture/failing-index"));

      assertThatThrownBy(withFixture::apply)
          .isInstanceOf(MigrationException.class)
          .hasMessageStartingWith("V1000 (fixture unique model) failed: ")
          .hasMessageContaining("could not create unique index");
      assertThat(validity(scratch, "fixture_model_unique_idx")).contains("f");
      assertThat(scratch.queryOne("SELECT count(*) FROM flyway_schema_history WHERE NOT success"))
          .contains("0");

      scratch.execute("DELETE FROM app_generation_operations WHERE operation_id = 'same-model-2'");
      int applied = withFixture.apply();

      assertThat(applied).isEqualTo(1);
      assertThat(validity(scratch, "fixture_model_unique_idx")).contains("t");
      assertThat(
              scratch.queryOne(
                  "SELECT count(*) FROM pg_class WHERE relname LIKE 'fixture_model_unique_idx%'"))
          .contains("1");
    }
  }

  private static void insertOperations(ScratchDatabase scratch, String... ids) {
    for (String id : ids) {
      scratch.execute(
          "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request)"
              + " VALUES ('"
              + id
              + "', 'delivered', 'none', 'image-v1', '{}')");
    }
  }

  private static java.util.Optional<String> validity(ScratchDatabase scratch, String index) {
    return scratch.queryOne(
        "SELECT indisvalid FROM pg_index WHERE indexrelid = '" + index + "'::regclass");
  }
}
