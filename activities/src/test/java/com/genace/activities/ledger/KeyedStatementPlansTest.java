package com.genace.activities.ledger;

import com.genace.activities.db.SqlStatement;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.QueryPlans;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every statement that reads or writes one operation reaches its row through the primary key, also
 * as the generic plan PostgreSQL keeps once JDBC has made the statement a server-prepared one
 * (after five runs). A statement that names a phase as a constant invites the planner to walk a
 * partial index over every operation in that phase instead (the unfinished index over all observing
 * operations, for a status poll): a cost that grows with the work in flight and that no "no
 * sequential scan" check sees.
 *
 * <p>Not listed: the poll schedule's single reschedule and finish, which find their row by the
 * claim's token on the schedule's own index (an equality on {@code poll_due_at}, matching the
 * claimed rows only).
 */
@ExtendWith(DatabaseExtension.class)
class KeyedStatementPlansTest {

  private DataSource db;

  @BeforeEach
  void fill(DataSource dataSource) {
    db = dataSource;
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " created_at) SELECT 'done-' || i, 'delivered', 'none', 'image-v1', '{}',"
            + " clock_timestamp() - i * interval '1 second' FROM generate_series(1, 30000) i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " remote_job_id, poll_due_at) SELECT 'live-' || i, 'observing', 'observe',"
            + " 'image-v1', '{}', 'gen_' || i, clock_timestamp() FROM generate_series(1, 600) i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request)"
            + " SELECT 'new-' || i, 'pending', 'dispatch', 'image-v1', '{}'"
            + " FROM generate_series(1, 600) i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " review_opened_at) SELECT 'review-' || i, 'in_review', 'reconcile', 'image-v1',"
            + " '{}', clock_timestamp() FROM generate_series(1, 600) i",
        "ANALYZE app_generation_operations");
  }

  static Stream<SqlStatement> keyedStatements() {
    return Stream.of(
        Claims.CLAIM,
        Claims.CLAIM_TO_POST,
        Claims.CLAIM_TO_SUBMIT,
        Claims.EXPLAIN_OR_DIVERT,
        LeaseWrites.RENEW,
        LeaseWrites.RELEASE,
        LeaseWrites.LEASE_DENIED,
        ObservationWrites.RECORD_OBSERVED_SNAPSHOT,
        PollSchedule.AWAIT,
        RemoteJobWrites.RECORD_SNAPSHOT,
        RemoteJobWrites.RECORD_DELIVERED,
        DispatchWrites.MARK_SUBMITTING,
        DispatchWrites.RECORD_ACCEPTED,
        DispatchWrites.RECORD_NOT_SENT,
        DispatchWrites.RECORD_REFUSED,
        ReviewWrites.OPEN_REVIEW,
        ReviewWrites.RESOLVE_REVIEW,
        LifecycleWrites.CANCEL,
        LifecycleWrites.REQUEST_CANCEL,
        LifecycleWrites.NOTE_CANCEL_AFTER_END,
        LifecycleWrites.SWEEP_TO_REVIEW,
        WaitingTooLong.REPORT,
        WaitingTooLong.DELIVERY_FAILED,
        OperationRecords.FIND);
  }

  @Test
  void each_reaches_its_operation_by_the_primary_key_as_a_generic_plan() {
    SoftAssertions softly = new SoftAssertions();
    keyedStatements()
        .forEach(
            statement -> {
              List<String> plan = genericPlan(statement);
              List<String> scans =
                  plan.stream()
                      .filter(
                          line ->
                              line.contains("Scan")
                                  && line.contains(" on app_generation_operations "))
                      .toList();
              softly.assertThat(scans).as(statement.name()).isNotEmpty();
              softly
                  .assertThat(scans)
                  .as(
                      statement.name() + ", every scan of the operations table in\n%s",
                      String.join("\n", plan))
                  .allMatch(line -> line.contains("using app_generation_operations_pkey"));
            });
    softly.assertAll();
  }

  /** The plan PostgreSQL keeps for the statement without its values (every parameter NULL). */
  private List<String> genericPlan(SqlStatement statement) {
    String numbered = statement.sql();
    int parameters = 0;
    while (numbered.contains("?")) {
      numbered = numbered.replaceFirst("\\?", "\\$" + ++parameters);
    }
    String nulls = String.join(", ", java.util.Collections.nCopies(parameters, "NULL"));
    List<String> plan = new ArrayList<>();
    try (Connection connection = db.getConnection();
        Statement s = connection.createStatement()) {
      try {
        s.execute("SET plan_cache_mode = force_generic_plan");
        s.execute("PREPARE keyed AS " + numbered);
        try (ResultSet rs =
            s.executeQuery("EXPLAIN EXECUTE keyed" + (parameters > 0 ? "(" + nulls + ")" : ""))) {
          while (rs.next()) {
            plan.add(rs.getString(1));
          }
        }
      } finally {
        s.execute("DEALLOCATE ALL");
        s.execute("RESET plan_cache_mode");
      }
    } catch (SQLException e) {
      throw new IllegalStateException(statement.name() + ": " + e.getMessage(), e);
    }
    return plan;
  }
}
