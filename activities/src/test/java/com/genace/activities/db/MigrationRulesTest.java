package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.db.support.MigrationRules;
import com.genace.activities.db.support.MigrationRules.Script;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The guard catches each unsafe shape (so that MigrationScriptsTest can fail) and passes safe ones.
 */
class MigrationRulesTest {

  private static final String REBUILD =
      "DROP INDEX CONCURRENTLY IF EXISTS ops_model_idx;\n"
          + "CREATE INDEX CONCURRENTLY ops_model_idx ON app_generation_operations (model);\n";

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          CREATE INDEX ops_model_idx ON app_generation_operations (model)                    | without CONCURRENTLY blocks its writes
          create unique index ops_model_idx on public.app_generation_operations(model)       | without CONCURRENTLY blocks its writes
          CREATE INDEX ON app_generation_operations (model)                                  | needs a name
          DROP INDEX app_generation_operations_account_idx                                   | takes ACCESS EXCLUSIVE
          ALTER TABLE app_generation_operations ADD CONSTRAINT c CHECK (revision >= 0)       | NOT VALID, then VALIDATE
          ALTER TABLE app_review_evidence ADD FOREIGN KEY (operation_id) REFERENCES app_generation_operations | NOT VALID, then VALIDATE
          ALTER TABLE app_review_evidence ADD COLUMN op text REFERENCES app_generation_operations | NOT VALID, then VALIDATE
          ALTER TABLE app_generation_operations ADD CONSTRAINT u UNIQUE (remote_job_id)      | USING INDEX
          ALTER TABLE app_generation_operations ADD PRIMARY KEY (operation_id)               | USING INDEX
          ALTER TABLE app_generation_operations ALTER COLUMN model SET NOT NULL              | SET NOT NULL reads every row
          ALTER TABLE app_generation_operations ALTER COLUMN revision TYPE numeric           | rewrites the whole table
          ALTER TABLE app_generation_operations ADD COLUMN seen timestamptz DEFAULT clock_timestamp() | rewrites the whole table
          ALTER TABLE app_generation_operations ADD COLUMN n bigserial                       | rewrites the whole table
          ALTER TABLE app_generation_operations ADD COLUMN n bigint GENERATED ALWAYS AS IDENTITY | rewrites the whole table
          ALTER TABLE app_generation_operations SET UNLOGGED                                 | rewrites the whole table
          UPDATE app_generation_operations SET account = 'x' WHERE account IS NULL           | backfill in batches
          DELETE FROM app_generation_transitions WHERE accepted = false                      | backfill in batches
          LOCK TABLE app_generation_operations IN ACCESS EXCLUSIVE MODE                      | locks the table
          VACUUM FULL app_generation_operations                                              | locks the table
          REINDEX TABLE app_generation_operations                                            | locks the table
          CREATE INDEX CONCURRENTLY ops_model_idx ON app_generation_operations (model)       | cannot run in a transaction
          """)
  void an_unsafe_statement_in_a_transactional_script_is_named(String sql, String reason) {
    assertThat(MigrationRules.violations(new Script("V99__x.sql", sql + ";", true)))
        .anySatisfy(v -> assertThat(v).contains(reason).startsWith("V99__x.sql: "));
  }

  @Test
  void a_concurrent_build_must_follow_a_drop_of_its_name_and_never_use_if_not_exists() {
    String withoutDrop =
        "CREATE INDEX CONCURRENTLY ops_model_idx ON app_generation_operations (model);";
    String ifNotExists =
        "DROP INDEX CONCURRENTLY IF EXISTS ops_model_idx;\n"
            + "CREATE INDEX CONCURRENTLY IF NOT EXISTS ops_model_idx"
            + " ON app_generation_operations (model);";
    String dropAfter = withoutDrop + "\nDROP INDEX CONCURRENTLY IF EXISTS ops_model_idx;";

    assertThat(MigrationRules.violations(new Script("V99__x.sql", withoutDrop, false)))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("must follow DROP INDEX CONCURRENTLY IF EXISTS OPS_MODEL_IDX");
    assertThat(MigrationRules.violations(new Script("V99__x.sql", ifNotExists, false)))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("IF NOT EXISTS keeps the INVALID index");
    assertThat(MigrationRules.violations(new Script("V99__x.sql", dropAfter, false)))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("must follow DROP INDEX");
  }

  @Test
  void a_script_outside_a_transaction_holds_only_concurrent_index_statements() {
    String mixed = "ALTER TABLE app_generation_operations ADD COLUMN note text;\n" + REBUILD;

    assertThat(MigrationRules.violations(new Script("V99__x.sql", mixed, false)))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("outside a transaction only")
        .contains("ADD COLUMN NOTE TEXT");
  }

  @Test
  void safe_shapes_pass() {
    String transactional =
        """
        -- CREATE INDEX in a comment is not a statement
        CREATE TABLE app_things (id bigint PRIMARY KEY, operation_id text
            REFERENCES app_generation_operations (operation_id), at timestamptz DEFAULT clock_timestamp());
        CREATE INDEX app_things_at_idx ON app_things (at);
        UPDATE app_things SET at = now();
        ALTER TABLE app_things ADD CONSTRAINT at_set CHECK (at IS NOT NULL);
        ALTER TABLE app_generation_operations ADD COLUMN note text,
            ADD COLUMN tries integer NOT NULL DEFAULT 0, ADD COLUMN seen timestamptz DEFAULT now();
        ALTER TABLE app_generation_operations ADD CONSTRAINT note_short
            CHECK (length(note) < 100) NOT VALID;
        ALTER TABLE app_generation_operations VALIDATE CONSTRAINT note_short;
        ALTER TABLE app_generation_operations DROP CONSTRAINT note_short;
        ALTER TABLE app_generation_operations SET (fillfactor = 80);
        CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE app_generation_operations SET note = 'CREATE INDEX x ON y (z)';
            RETURN NEW;
        END
        $$;
        INSERT INTO app_worker_controls (name, enabled, changed_by) VALUES ('x', true, 'y');
        """;

    assertThat(MigrationRules.violations(new Script("V98__safe.sql", transactional, true)))
        .isEmpty();
    assertThat(MigrationRules.violations(new Script("V99__safe.sql", REBUILD, false))).isEmpty();
  }
}
