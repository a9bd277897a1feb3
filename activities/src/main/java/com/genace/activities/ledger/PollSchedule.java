package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The ledger as the observation's poll schedule: which observing operations are due for a status
 * poll, claimed by any worker's poll loop with {@code SKIP LOCKED} so that loops never wait on one
 * another nor claim the same due operation twice. Reached by {@link OperationsLedger#polls}.
 *
 * <p>The schedule's columns ({@code poll_due_at}, {@code poll_count}, the observer's ids) are
 * bookkeeping, not the operation's state: they take no lease, no revision and leave no history row.
 * Snapshots, reviews and every other change of state are still written by the fenced statements. A
 * claim moves {@code poll_due_at} ahead by the claim time and that value is the claim's token: only
 * a statement given the same token reschedules or ends the schedule, so a loop that stalled past
 * its claim time changes nothing, and a loop that died leaves its rows due again once the claim
 * time has run out.
 *
 * <p>Every method is one statement in autocommit mode, run and traced as the ledger's others are.
 */
public final class PollSchedule {

  /**
   * When an operation that starts observing is first due for a poll loop: the waiting activity
   * normally claims it for its own first poll well before ({@link #AWAIT}), so this only counts
   * when Temporal has not started that activity yet (a backlog of tasks, or a task handed to a
   * worker that froze). Polling then starts anyway, whatever Temporal's queue holds.
   */
  static final Duration UNCLAIMED_FIRST_POLL = Duration.ofSeconds(5);

  /**
   * Reschedules {@link #rescheduleAll} takes at once, at most: few enough that the planner finds
   * each row by its key, however long the history (with 500 it scans a table of 30,000 rows whole).
   */
  public static final int MAX_RESCHEDULES = 100;

  private final Sql sql;
  private final Duration claimFor;

  /**
   * @param claimFor how long the waiting activity's first attempt claims the operation for its own
   *     first poll (the ledger's lease duration)
   */
  PollSchedule(Sql sql, Duration claimFor) {
    this.sql = sql;
    this.claimFor = claimFor;
  }

  /**
   * Names the activity waiting for the outcome, while the operation observes; the operation is on
   * the schedule already (the write that made it observe put it there, {@link
   * #UNCLAIMED_FIRST_POLL}). The activity's first attempt ({@code claim}) claims it for {@code
   * claimFor} at once, for its own first poll; the claim's new token overtakes any loop's claim. A
   * later attempt (after its start-to-close timeout) only names itself again and leaves the
   * schedule as it is, or makes the operation due at once when it is on none, so that an observing
   * operation always has a next poll. The backoff's step carries over within the same activity and
   * from the polls made before any activity registered; a new activity (a new observation after a
   * review) starts over.
   *
   * <p>The phase and the action come from the materialized {@code w} row, as in {@link
   * FencedWrite#action}: as literals beside the key they let the planner walk every observing
   * operation through the unfinished index instead of taking the row by its key, a plan it chose on
   * a new ledger (EmptyLedgerPlansTest) and kept as the ledger grew.
   */
  static final SqlStatement AWAIT =
      SqlStatement.of(
          "await_observation",
          """
          WITH w AS MATERIALIZED (
            SELECT ?::text AS workflow_id, ?::text AS run_id, ?::text AS activity_id,
                   ?::text AS traceparent, ?::boolean AS claim, ?::interval AS claim_for,
                   ?::text AS operation_id, 'observing'::text AS phase, 'observe'::text AS action
          )
          UPDATE app_generation_operations o
          SET poll_due_at = CASE WHEN w.claim THEN clock_timestamp() + w.claim_for
                                 ELSE coalesce(o.poll_due_at, clock_timestamp()) END,
              poll_count = CASE WHEN o.observer_run_id IS NULL
                                     OR (o.observer_run_id = w.run_id
                                         AND o.observer_activity_id = w.activity_id)
                                THEN o.poll_count ELSE 0 END,
              observer_workflow_id = w.workflow_id, observer_run_id = w.run_id,
              observer_activity_id = w.activity_id, observer_traceparent = w.traceparent
          FROM w
          WHERE o.operation_id = w.operation_id AND o.phase = w.phase AND o.next_action = w.action
          RETURNING o.*
          """);

  /**
   * Observation by the poll schedule: names {@code waiter} as the activity to complete with the
   * outcome of the operation, which is on the schedule already. With {@code claim} (the activity's
   * first attempt) it is claimed for the ledger's lease duration so that the caller makes the first
   * poll; without, the schedule stays as it is ({@link #AWAIT}).
   *
   * @return the row (and the claim's token); empty if the operation is not observing (its outcome
   *     is in the ledger)
   */
  public Optional<DuePoll> awaitObservation(
      String operationId, ObservationWaiter waiter, boolean claim) {
    Identifiers.requireOperationId(operationId);
    return sql.queryOne(
        AWAIT,
        p ->
            p.text(waiter.workflowId()) // observer_workflow_id
                .text(waiter.runId()) // observer_run_id
                .text(waiter.activityId()) // observer_activity_id
                .text(waiter.traceParent().orElse(null)) // observer_traceparent
                .bool(claim) // claim for a first poll, or keep the schedule
                .interval(claimFor) // poll_due_at - clock_timestamp()
                .text(operationId), // operation_id
        PollSchedule::duePoll);
  }

  /**
   * Up to {@code limit} due operations, oldest due first, each claimed for {@code claimFor}. Rows
   * another loop is claiming at this moment are skipped, not waited for. "Due" is compared with
   * {@code statement_timestamp()}, which is stable within the statement and so bounds the index
   * scan to the due entries ({@code clock_timestamp()} is volatile: only a filter, read over every
   * scheduled row); the token is still {@code clock_timestamp()}, distinct for every claim.
   */
  static final SqlStatement CLAIM_DUE =
      SqlStatement.of(
          "claim_due_polls",
          """
          WITH due AS (
            SELECT operation_id FROM app_generation_operations
            WHERE poll_due_at <= statement_timestamp()
            ORDER BY poll_due_at
            LIMIT ?
            FOR NO KEY UPDATE SKIP LOCKED
          )
          UPDATE app_generation_operations o
          SET poll_due_at = clock_timestamp() + ?::interval
          FROM due
          WHERE o.operation_id = due.operation_id
          RETURNING o.*
          """);

  /** Up to {@code limit} operations due for a poll, each claimed for {@code claimFor}. */
  public List<DuePoll> claimDue(int limit, Duration claimFor) {
    if (limit < 1 || claimFor.isNegative() || claimFor.isZero()) {
      throw new IllegalArgumentException("a poll claim needs a positive limit and claim time");
    }
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

  /**
   * The next poll of a claimed operation, {@code delay} from now.
   *
   * @return false if the claim was overtaken (its time ran out and another loop claimed it, or the
   *     observation was registered anew): nothing changed
   */
  public boolean reschedule(DuePoll claimed, Duration delay) {
    return sql.update(
            RESCHEDULE,
            p ->
                p.interval(delay) // poll_due_at - clock_timestamp()
                    .text(claimed.row().operationId()) // operation_id
                    .timestamp(claimed.token())) // the claim's token
        == 1;
  }

  /**
   * The next polls of several claimed operations in one statement, each {@code delay} from now and
   * one step further in backoff, each only under its claim's token, as {@link #RESCHEDULE} does for
   * one. A poll loop writes the reschedules of its polls this way: one commit for many polls
   * instead of one each. Each row is found by its key: the ids again as {@code = ANY}, which the
   * primary key serves (joined to the arrays alone, the planner hashes a scan of the whole table),
   * and the token compared with {@code IS NOT DISTINCT FROM}, which no index serves (with {@code =}
   * the planner walks the whole schedule's index instead).
   */
  static final SqlStatement RESCHEDULE_MANY =
      SqlStatement.of(
          "reschedule_polls",
          """
          UPDATE app_generation_operations o
          SET poll_due_at = clock_timestamp() + b.delay::interval, poll_count = o.poll_count + 1
          FROM unnest(?::text[], ?::text[], ?::text[]) AS b(operation_id, token, delay)
          WHERE o.operation_id = ANY (?::text[]) AND o.operation_id = b.operation_id
            AND o.poll_due_at IS NOT DISTINCT FROM b.token::timestamptz
          RETURNING o.operation_id
          """);

  /**
   * The next polls of several claimed operations, in one statement: what {@link #reschedule} does
   * for each. At most {@link #MAX_RESCHEDULES} at once.
   *
   * @return the operation ids whose reschedule applied; a claim missing from it was overtaken
   */
  public Set<String> rescheduleAll(List<NextPoll> next) {
    if (next.isEmpty()) {
      return Set.of();
    }
    if (next.size() > MAX_RESCHEDULES) {
      throw new IllegalArgumentException(
          next.size() + " reschedules in one statement; at most " + MAX_RESCHEDULES);
    }
    List<String> ids = new ArrayList<>(next.size());
    List<String> tokens = new ArrayList<>(next.size());
    List<String> delays = new ArrayList<>(next.size());
    for (NextPoll poll : next) {
      ids.add(poll.claimed().row().operationId());
      tokens.add(poll.claimed().token().toString());
      delays.add(poll.delay().toMillis() + " milliseconds");
    }
    return new HashSet<>(
        sql.query(
            RESCHEDULE_MANY,
            p -> p.texts(ids).texts(tokens).texts(delays).texts(ids), // b's columns; ANY
            rs -> rs.getString("operation_id")));
  }

  /**
   * Puts a claimed operation whose outcome its waiting activity could not be told back on the
   * schedule, {@code delay} from now: also when a terminal snapshot has already taken it off (see
   * {@link ObservationWrites}), as long as the activity the claim saw registered (or none) is still
   * the one registered: one that registered since made its own first poll.
   */
  static final SqlStatement RETRY_TELLING =
      SqlStatement.of(
          "retry_telling",
          """
          UPDATE app_generation_operations
          SET poll_due_at = clock_timestamp() + ?::interval
          WHERE operation_id = ? AND (poll_due_at IS NULL OR poll_due_at = ?)
            AND observer_run_id IS NOT DISTINCT FROM ?
            AND observer_activity_id IS NOT DISTINCT FROM ?
          """);

  /**
   * Puts a claimed operation back on the schedule, {@code delay} from now, because its waiting
   * activity could not be told its outcome; also after a terminal snapshot took it off.
   *
   * @return false if another claim or another waiting activity overtook it: nothing changed
   */
  public boolean retryTelling(DuePoll claimed, Duration delay) {
    Optional<ObservationWaiter> waiter = claimed.waiter();
    return sql.update(
            RETRY_TELLING,
            p ->
                p.interval(delay) // poll_due_at - clock_timestamp()
                    .text(claimed.row().operationId()) // operation_id
                    .timestamp(claimed.token()) // the claim's token
                    .text(waiter.map(ObservationWaiter::runId).orElse(null)) // observer_run_id
                    .text(waiter.map(ObservationWaiter::activityId).orElse(null))) // activity
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

  /**
   * Takes a claimed operation off the schedule once its waiting activity has its answer.
   *
   * @return false if the claim was overtaken: nothing changed
   */
  public boolean finish(DuePoll claimed) {
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
