package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.Migrations;
import com.genace.activities.db.SqlStatement;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.QueryPlans;
import com.genace.activities.testing.ScratchDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * On a new ledger, and on one just emptied (every operation deleted and the table vacuumed, as a
 * retention pass and autovacuum leave it), the statements of a delivered operation and the poll
 * loop's claim reach their rows through an index condition, also as the generic plan PostgreSQL
 * keeps for a server-prepared statement: a plan made while the table holds a few dozen rows, kept
 * by every pooled connection until autovacuum analyzes the table (up to a minute later, by then
 * thousands of rows). A sequential scan or a whole-index walk there grows with every operation the
 * burst creates: writes ten times slower and half the throughput for the first minute of a new
 * deployment (issue #43). The connections are the production pool's ({@link Database#open}), whose
 * session settings are part of what is tested.
 */
@ExtendWith(DatabaseExtension.class)
class EmptyLedgerPlansTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The rows of a burst's first instants, when the first statements are planned. */
  static final int FEW = 40;

  /**
   * What the history's foreign key runs for every transition row (each write of a delivered
   * operation leaves one), as PostgreSQL's referential-integrity trigger words it. Its plan is kept
   * per connection like a prepared statement's.
   */
  static final SqlStatement HISTORY_KEY_CHECK =
      SqlStatement.of(
          "history_key_check",
          "SELECT 1 FROM ONLY app_generation_operations x"
              + " WHERE operation_id OPERATOR(pg_catalog.=) ?::text FOR KEY SHARE OF x");

  /** A delivered operation's statements in the order it runs them, and the poll loop's claim. */
  static List<SqlStatement> hotStatements() {
    return List.of(
        OperationRecords.CREATE,
        HISTORY_KEY_CHECK,
        Claims.CLAIM_TO_SUBMIT,
        DispatchWrites.RECORD_ACCEPTED,
        PollSchedule.AWAIT,
        ObservationWrites.RECORD_OBSERVED_SNAPSHOT,
        Claims.CLAIM,
        RemoteJobWrites.RECORD_DELIVERED,
        PollSchedule.CLAIM_DUE);
  }

  @Test
  void a_new_ledger_plans_each_hot_statement_with_an_index_condition() {
    try (ScratchDatabase scratch = ScratchDatabase.create("new_ledger")) {
      Migrations.of(scratch.url()).apply();
      try (Database pool = Database.open(DatabaseConfig.of(scratch.url()).withMaxPoolSize(2))) {
        DataSource db = pool.dataSource();
        assertThat(reltuples(db)).as("a new table's row estimate: never counted").isEqualTo(-1);
        insertFewOperations(db);

        assertIndexPlans(db);
      }
    }
  }

  @Test
  void an_emptied_ledger_plans_each_hot_statement_with_an_index_condition(DataSource db) {
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request)"
            + " SELECT 'gone-' || i, 'delivered', 'none', 'image-v1', '{}'"
            + " FROM generate_series(1, 20000) i",
        "ANALYZE app_generation_operations",
        "DELETE FROM app_generation_operations",
        "VACUUM app_generation_operations");
    assertThat(reltuples(db)).as("an emptied table's row estimate, after its vacuum").isZero();
    insertFewOperations(db);

    assertIndexPlans(db);
  }

  /** A burst's first operations: some pending, some observing and due, some delivering. */
  private static void insertFewOperations(DataSource db) {
    int third = FEW / 3;
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request)"
            + " SELECT 'new-' || i, 'pending', 'dispatch', 'image-v1', '{}'"
            + " FROM generate_series(1, "
            + third
            + ") i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " remote_job_id, poll_due_at) SELECT 'live-' || i, 'observing', 'observe',"
            + " 'image-v1', '{}', 'gen_' || i, clock_timestamp() FROM generate_series(1, "
            + third
            + ") i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " remote_job_id) SELECT 'done-' || i, 'delivering', 'deliver', 'image-v1', '{}',"
            + " 'gen_done_' || i FROM generate_series(1, "
            + (FEW - 2 * third)
            + ") i");
  }

  private static void assertIndexPlans(DataSource db) {
    SoftAssertions softly = new SoftAssertions();
    for (SqlStatement statement : hotStatements()) {
      List<String> scans = new ArrayList<>();
      collectScans(genericPlan(db, statement), scans);
      softly
          .assertThat(scans)
          .as(statement.name() + ", each scan of the operations table")
          .allMatch(scan -> scan.startsWith("keyed: "), "reads by an index condition on its key");
    }
    softly.assertAll();
  }

  /**
   * Each scan of the operations table in the plan: {@code "keyed: <index>: <condition>"} when it
   * reads by an index condition on the operation's key or the poll schedule's, otherwise its node
   * type, index and condition or filter (a sequential scan, an index walked whole, or a partial
   * index walked over every operation in a phase).
   */
  private static void collectScans(JsonNode node, List<String> scans) {
    String type = node.path("Node Type").asText();
    if ("app_generation_operations".equals(node.path("Relation Name").asText())
        && !"ModifyTable".equals(type)) {
      String condition = node.path("Index Cond").asText("");
      if (type.equals("Bitmap Heap Scan")) {
        condition = node.path("Plans").path(0).path("Index Cond").asText("");
      }
      boolean keyed = condition.contains("operation_id") || condition.contains("poll_due_at");
      String index = node.path("Index Name").asText("");
      scans.add(
          keyed
              ? "keyed: " + index + ": " + condition
              : type
                  + (index.isEmpty() ? "" : " using " + index)
                  + (condition.isEmpty() ? "" : ", Index Cond: " + condition)
                  + ", Filter: "
                  + node.path("Filter").asText("none"));
    }
    for (JsonNode child : node.path("Plans")) {
      collectScans(child, scans);
    }
  }

  /** The plan PostgreSQL keeps for the statement without its values (every parameter NULL). */
  private static JsonNode genericPlan(DataSource db, SqlStatement statement) {
    String numbered = statement.sql();
    int parameters = 0;
    while (numbered.contains("?")) {
      numbered = numbered.replaceFirst("\\?", "\\$" + ++parameters);
    }
    String nulls = String.join(", ", Collections.nCopies(parameters, "NULL"));
    try (Connection connection = db.getConnection();
        Statement s = connection.createStatement()) {
      try {
        s.execute("SET plan_cache_mode = force_generic_plan");
        s.execute("PREPARE hot AS " + numbered);
        try (ResultSet rs =
            s.executeQuery(
                "EXPLAIN (FORMAT JSON) EXECUTE hot" + (parameters > 0 ? "(" + nulls + ")" : ""))) {
          rs.next();
          return JSON.readTree(rs.getString(1)).path(0).path("Plan");
        }
      } finally {
        s.execute("DEALLOCATE ALL");
        s.execute("RESET plan_cache_mode");
      }
    } catch (SQLException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(statement.name() + ": " + e.getMessage(), e);
    }
  }

  private static double reltuples(DataSource db) {
    try (Connection connection = db.getConnection();
        Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT reltuples FROM pg_class WHERE oid = 'app_generation_operations'::regclass")) {
      rs.next();
      return rs.getDouble(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
