package com.genace.ledger;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The ledger as the observation's poll schedule: which observing operations are due for a status
 * read, claimed by any worker's poll loop with {@code SKIP LOCKED} so that loops never wait on one
 * another nor poll the same operation twice.
 *
 * <p>The schedule's columns ({@code poll_due_at}, {@code poll_count}, the observer's ids) are
 * bookkeeping, not the operation's state: they take no lease, no revision and leave no history row.
 * Snapshots, reviews and every other change of state are still written by the fenced statements. A
 * claim moves {@code poll_due_at} ahead by the claim time and that value is the claim's token: only
 * a statement given the same token reschedules or ends the schedule, so a loop that stalled past
 * its claim time changes nothing, and a loop that died leaves its rows due again once the claim
 * time has run out.
 */
final class PollSchedule {

  private final Sql sql;

  PollSchedule(Sql sql) {
    this.sql = sql;
  }

  /**
   * Schedules the first poll and names the activity waiting for the outcome, while the operation
   * observes. The same activity registering again (its next attempt, after a timeout) keeps the
   * schedule as it is, claim and backoff step included; a new activity (a new observation after a
   * review) starts over with a new token, so that no claim of the old one can end it.
   */
  static final SqlStatement AWAIT =
      SqlStatement.of(
          "await_observation",
          """
          UPDATE app_generation_operations o
          SET poll_due_at = CASE WHEN o.observer_run_id = w.run_id
                                      AND o.observer_activity_id = w.activity_id
                                 THEN coalesce(o.poll_due_at, clock_timestamp())
                                 ELSE clock_timestamp() + w.first_in END,
              poll_count = CASE WHEN o.observer_run_id = w.run_id
                                     AND o.observer_activity_id = w.activity_id
                                THEN o.poll_count ELSE 0 END,
              observer_workflow_id = w.workflow_id, observer_run_id = w.run_id,
              observer_activity_id = w.activity_id, observer_traceparent = w.traceparent
          FROM (SELECT ?::text AS workflow_id, ?::text AS run_id, ?::text AS activity_id,
                       ?::text AS traceparent, ?::interval AS first_in) w
          WHERE o.operation_id = ? AND o.phase = 'observing' AND o.next_action = 'observe'
          """);

  boolean await(String operationId, ObservationWaiter waiter, Duration firstIn) {
    return sql.update(
            AWAIT,
            p ->
                p.text(waiter.workflowId()) // observer_workflow_id
                    .text(waiter.runId()) // observer_run_id
                    .text(waiter.activityId()) // observer_activity_id
                    .text(waiter.traceParent().orElse(null)) // observer_traceparent
                    .interval(firstIn) // poll_due_at - clock_timestamp()
                    .text(operationId)) // operation_id
        == 1;
  }

  /**
   * Up to {@code limit} due operations, oldest due first, each claimed for {@code claimFor}. Rows
   * another loop is claiming at this moment are skipped, not waited for.
   */
  static final SqlStatement CLAIM_DUE =
      SqlStatement.of(
          "claim_due_polls",
          """
          WITH due AS (
            SELECT operation_id FROM app_generation_operations
            WHERE poll_due_at <= clock_timestamp()
            ORDER BY poll_due_at
            LIMIT ?
            FOR UPDATE SKIP LOCKED
          )
          UPDATE app_generation_operations o
          SET poll_due_at = clock_timestamp() + ?::interval
          FROM due
          WHERE o.operation_id = due.operation_id
          RETURNING o.*
          """);

  List<DuePoll> claimDue(int limit, Duration claimFor) {
    return sql.query(
        CLAIM_DUE,
        p -> p.integer(limit).interval(claimFor), // LIMIT, claim time
        PollSchedule::duePoll);
  }

  /** The next poll of a claimed operation, {@code delay} from now, one step further in backoff. */
  static final SqlStatement RESCHEDULE =
      SqlStatement.of(
          "reschedule_poll",
          """
          UPDATE app_generation_operations
          SET poll_due_at = clock_timestamp() + ?::interval, poll_count = poll_count + 1
          WHERE operation_id = ? AND poll_due_at = ?
          """);

  boolean reschedule(DuePoll claimed, Duration delay) {
    return sql.update(
            RESCHEDULE,
            p ->
                p.interval(delay) // poll_due_at - clock_timestamp()
                    .text(claimed.row().operationId()) // operation_id
                    .timestamp(claimed.token())) // the claim's token
        == 1;
  }

  /** Ends the schedule of a claimed operation: its waiting activity has its answer. */
  static final SqlStatement FINISH =
      SqlStatement.of(
          "finish_polls",
          """
          UPDATE app_generation_operations
          SET poll_due_at = NULL, poll_count = 0, observer_workflow_id = NULL,
              observer_run_id = NULL, observer_activity_id = NULL, observer_traceparent = NULL
          WHERE operation_id = ? AND poll_due_at = ?
          """);

  boolean finish(DuePoll claimed) {
    return sql.update(
            FINISH,
            p -> p.text(claimed.row().operationId()).timestamp(claimed.token())) // id, token
        == 1;
  }

  private static DuePoll duePoll(ResultSet rs) throws SQLException {
    Optional<String> workflowId = Sql.text(rs, "observer_workflow_id");
    Optional<ObservationWaiter> waiter =
        workflowId.isEmpty()
            ? Optional.empty()
            : Optional.of(
                new ObservationWaiter(
                    workflowId.get(),
                    rs.getString("observer_run_id"),
                    rs.getString("observer_activity_id"),
                    Sql.text(rs, "observer_traceparent")));
    return new DuePoll(
        OperationRecords.row(rs),
        rs.getInt("poll_count"),
        Sql.instant(rs, "poll_due_at").orElseThrow(),
        waiter);
  }
}
