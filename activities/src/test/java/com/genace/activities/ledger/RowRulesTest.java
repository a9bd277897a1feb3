package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.QueryPlans;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.util.PSQLException;

/**
 * The database refuses an operation row that breaks the ledger's rules, whoever writes it: on
 * insert, and on any update that sets a column the rules' trigger fires for. The rules live in a
 * trigger (its function as V27 defines it), not in CHECK constraints, so that the statements that
 * set none of those columns, the lease path's above all, do not pay for them.
 */
@ExtendWith(DatabaseExtension.class)
class RowRulesTest {

  private DataSource db;

  @BeforeEach
  void setUp(DataSource db) {
    this.db = db;
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " remote_job_id, remote_status) VALUES ('op-1', 'observing', 'observe', 'image-v1',"
            + " '{}', 'gen_1', 'running')");
  }

  @ParameterizedTest(name = "{0} refused by {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "operation_id = '  '                              | operation_id_not_blank",
        "next_action = 'sleep', phase = 'observing'       | next_action_known",
        "phase = 'delivered'                              | phase_matches_next_action",
        "phase = 'observing', next_action = 'deliver'     | phase_matches_next_action",
        "phase = 'thinking'                               | phase_matches_next_action",
        "revision = -1, phase = 'observing'               | revision_not_negative",
        "credits = -1                                     | app_generation_operations_credits_check",
        "remote_status = 'lost'                           | remote_status_known",
      })
  void an_update_that_breaks_a_rule_is_refused_with_its_name(String set, String rule)
      throws SQLException {
    assertThatThrownBy(() -> execute("UPDATE app_generation_operations SET " + set + " WHERE true"))
        .isInstanceOfSatisfying(
            PSQLException.class,
            e -> {
              assertThat(e.getSQLState()).isEqualTo("23514");
              assertThat(e.getServerErrorMessage().getConstraint()).isEqualTo(rule);
            });
    assertThat(row()).isEqualTo("op-1 observing observe 0 running");
  }

  @Test
  void an_insert_that_breaks_a_rule_is_refused() {
    assertThatThrownBy(
            () ->
                execute(
                    "INSERT INTO app_generation_operations (operation_id, phase, next_action,"
                        + " model, request) VALUES ('op-2', 'pending', 'observe', 'image-v1',"
                        + " '{}')"))
        .isInstanceOfSatisfying(
            PSQLException.class,
            e ->
                assertThat(e.getServerErrorMessage().getConstraint())
                    .isEqualTo("phase_matches_next_action"));
  }

  /**
   * Claim, renew and release set only the lease's columns and the revision: neither the trigger nor
   * a CHECK runs for them (V27), while a phase change still runs the trigger once. Counted by
   * PostgreSQL in the statements' own transaction ({@code pg_stat_get_xact_function_calls}).
   */
  @Test
  void the_lease_path_runs_no_rule() throws SQLException {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement()) {
      assertThat(count(statement, CHECKS_ON_THE_TABLE)).isZero();
      connection.setAutoCommit(false);
      statement.execute("SET LOCAL track_functions = 'pl'");
      statement.execute(
          "UPDATE app_generation_operations SET lease_owner = 'w', revision = revision + 1,"
              + " lease_until = clock_timestamp() + interval '1 minute'"); // a claim
      statement.execute(
          "UPDATE app_generation_operations"
              + " SET lease_until = clock_timestamp() + interval '2 minutes'"); // a renewal
      statement.execute(
          "UPDATE app_generation_operations SET lease_owner = NULL, lease_until = NULL"); // release
      assertThat(count(statement, RULE_CALLS)).isZero();
      statement.execute(
          "UPDATE app_generation_operations SET phase = 'delivering', next_action = 'deliver',"
              + " revision = revision + 1");
      assertThat(count(statement, RULE_CALLS)).isEqualTo(1);
      connection.rollback();
    }
  }

  private static final String CHECKS_ON_THE_TABLE =
      "SELECT count(*) FROM pg_constraint"
          + " WHERE conrelid = 'app_generation_operations'::regclass AND contype = 'c'";

  private static final String RULE_CALLS =
      "SELECT coalesce(pg_stat_get_xact_function_calls("
          + "'app_generation_operations_rules()'::regprocedure), 0)";

  private static long count(Statement statement, String sql) throws SQLException {
    try (var rs = statement.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  @Test
  void every_phase_is_accepted_with_its_own_next_action() throws SQLException {
    String[][] pairs = {
      {"pending", "dispatch"}, {"submitting", "dispatch"}, {"observing", "observe"},
      {"delivering", "deliver"}, {"in_review", "reconcile"}, {"delivered", "none"},
      {"failed", "none"}, {"abandoned", "none"}
    };
    for (String[] pair : pairs) {
      execute(
          "UPDATE app_generation_operations SET phase = '"
              + pair[0]
              + "', next_action = '"
              + pair[1]
              + "', revision = revision + 1, remote_status = NULL");
    }
    assertThat(row()).isEqualTo("op-1 abandoned none 8 null");
  }

  @ParameterizedTest
  @CsvSource({"phase", "next_action", "revision", "operation_id"})
  void a_missing_value_is_reported_by_its_not_null(String column) {
    assertThatThrownBy(() -> execute("UPDATE app_generation_operations SET " + column + " = NULL"))
        .isInstanceOfSatisfying(
            PSQLException.class,
            e -> {
              assertThat(e.getSQLState()).isEqualTo("23502"); // not_null_violation
              assertThat(e.getServerErrorMessage().getColumn()).isEqualTo(column);
            });
  }

  private void execute(String sql) throws SQLException {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private String row() throws SQLException {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement();
        var rs =
            statement.executeQuery(
                "SELECT operation_id, phase, next_action, revision, remote_status"
                    + " FROM app_generation_operations")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1)
          + " "
          + rs.getString(2)
          + " "
          + rs.getString(3)
          + " "
          + rs.getLong(4)
          + " "
          + rs.getString(5);
    }
  }
}
