package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.workflows.lifecycle.RetentionReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes ended operations older than a window, with their transitions, review evidence and
 * reservations. One pass:
 *
 * <ol>
 *   <li>reads the next batch of ended operations whose end is older than the window, oldest end
 *       first, after the last one read by this pass (a range scan of the ended index): those with a
 *       reservation the allowance still counts (in flight, or made within its window) are kept;
 *   <li>deletes the others' transitions and reservations in chunks of a bounded number of rows,
 *       each its own statement, while their rows still stand (so a crash in between leaves an
 *       operation whose history is shorter, still due, never a history without its operation);
 *   <li>in one short transaction, deletes those operations again checked as due (statement one) and
 *       then their evidence, reservations and any history row written meanwhile (statement two,
 *       which sees every row committed before it: a late row's writer holds the operation's row
 *       until it commits);
 *   <li>goes on with the next batch until none is due, or the pass's bound in batches or time.
 * </ol>
 *
 * <p>Nothing here waits on the hot statements or makes them wait: they write unfinished rows, and
 * only ended rows are locked here. Every time decision is the database clock's, read once per
 * statement ({@code statement_timestamp()}, which the planner can compare with the ended index,
 * unlike the volatile {@code clock_timestamp()}: a batch stops at the window instead of reading
 * every ended row after it).
 */
public final class LedgerRetention {

  /**
   * How much one pass does.
   *
   * @param batchSize operations read (and at most deleted) per batch
   * @param deleteChunk transitions (or reservations) deleted per statement
   * @param maxBatches batches per pass
   * @param maxPassTime no batch starts after this
   * @param restRatio after each batch the pass rests this many times as long as the batch took, so
   *     that it takes at most a share of the database's time (and of its log writes, which every
   *     hot statement's commit waits for): 1 is at most half
   */
  public record Bounds(
      int batchSize, int deleteChunk, int maxBatches, Duration maxPassTime, double restRatio) {

    /**
     * 500 operations a batch, 5,000 transitions a statement, 200 batches or 2 minutes a pass,
     * resting as long as each batch took (docs/performance.md, "bench soak").
     */
    public static final Bounds DEFAULT = new Bounds(500, 5_000, 200, Duration.ofMinutes(2), 1.0);

    public Bounds {
      if (batchSize < 1 || batchSize > 10_000 || deleteChunk < 1 || maxBatches < 1) {
        throw new IllegalArgumentException("retention batches need a size from 1 to 10,000");
      }
      if (maxPassTime == null || maxPassTime.isNegative() || maxPassTime.isZero()) {
        throw new IllegalArgumentException("a retention pass needs a positive time bound");
      }
      if (!(restRatio >= 0 && restRatio <= 10)) {
        throw new IllegalArgumentException("a retention pass rests 0 to 10 times a batch's time");
      }
    }
  }

  private final Sql sql;

  LedgerRetention(Sql sql) {
    this.sql = sql;
  }

  /**
   * One pass (see the class comment).
   *
   * @param window ended operations are kept this long after they ended; must be positive
   * @param allowanceWindow reservations made within this are kept, with their operations
   * @param afterBatch run after each batch (an activity's heartbeat)
   */
  public RetentionReport pass(
      Duration window, Duration allowanceWindow, Bounds bounds, Runnable afterBatch) {
    if (window == null || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("a retention window must be positive");
    }
    long started = System.nanoTime();
    long deadline = started + bounds.maxPassTime().toNanos();
    Counts counts = new Counts();
    Due after = Due.START;
    int batches = 0;
    boolean complete = false;
    while (batches < bounds.maxBatches() && System.nanoTime() - deadline < 0) {
      long batchStarted = System.nanoTime();
      List<Due> due = due(after, window, allowanceWindow, bounds.batchSize());
      batches++;
      List<String> deletable = new ArrayList<>();
      for (Due operation : due) {
        if (operation.counted()) {
          counts.kept++;
        } else {
          deletable.add(operation.operationId());
        }
      }
      if (!deletable.isEmpty()) {
        counts.transitions += deleteInChunks(DELETE_HISTORY, deletable, bounds.deleteChunk());
        counts.reservations += deleteInChunks(DELETE_RESERVATIONS, deletable, bounds.deleteChunk());
        delete(deletable, window, allowanceWindow, counts);
      }
      afterBatch.run();
      if (due.size() < bounds.batchSize()) {
        complete = true;
        break;
      }
      after = due.get(due.size() - 1);
      rest(System.nanoTime() - batchStarted, bounds.restRatio());
    }
    return new RetentionReport(
        counts.operations,
        counts.transitions,
        counts.evidence,
        counts.reservations,
        counts.kept,
        batches,
        (System.nanoTime() - started) / 1_000_000,
        complete,
        window.toSeconds());
  }

  private static void rest(long batchNanos, double ratio) {
    long nanos = (long) (batchNanos * ratio);
    if (nanos <= 0) {
      return;
    }
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LedgerException("retention pass interrupted");
    }
  }

  private static final class Counts {
    long operations;
    long transitions;
    long evidence;
    long reservations;
    long kept;
  }

  /** An ended operation due for deletion, and whether the allowance still counts it. */
  private record Due(String operationId, Instant endedAt, boolean counted) {
    static final Due START = new Due("", Instant.EPOCH, false);
  }

  /**
   * The next batch of ended operations whose end is older than the window, after the last one read,
   * in the ended index's order: one range scan of it. {@code counted}: a reservation of it is in
   * flight, or was made within the allowance's window, probed per operation by the reservations'
   * operation index. (As an {@code EXISTS} in the select list, the planner hashes the whole
   * reservations table instead once it grows: 97 ms a batch at a million reservations.)
   */
  static final SqlStatement DUE =
      SqlStatement.of(
          "retention_due",
          """
          SELECT due.operation_id, due.phase_since, counted.yes IS NOT NULL AS counted
          FROM (SELECT o.operation_id, o.phase_since
                FROM app_generation_operations o
                WHERE o.next_action = 'none'
                  AND (o.phase_since, o.operation_id) > (?::timestamptz, ?::text)
                  AND o.phase_since < statement_timestamp() - ?::interval
                ORDER BY o.phase_since, o.operation_id
                LIMIT ?) due
          LEFT JOIN LATERAL (
            SELECT true AS yes FROM app_dispatch_reservations r
            WHERE r.operation_id = due.operation_id
              AND (r.state = 'in_flight' OR r.reserved_at > statement_timestamp() - ?::interval)
            LIMIT 1) counted ON true
          ORDER BY due.phase_since, due.operation_id
          """);

  private List<Due> due(Due after, Duration window, Duration allowanceWindow, int limit) {
    return sql.query(
        DUE,
        p ->
            p.timestamp(after.endedAt()) // phase_since, after
                .text(after.operationId()) // operation_id, after
                .interval(window) // phase_since older than the window
                .integer(limit) // LIMIT
                .interval(allowanceWindow), // reservations.reserved_at within the allowance window
        rs ->
            new Due(
                rs.getString("operation_id"),
                Sql.instant(rs, "phase_since").orElseThrow(),
                rs.getBoolean("counted")));
  }

  /**
   * At most {@code limit} history rows of these operations (by the transitions' operation index).
   */
  static final SqlStatement DELETE_HISTORY =
      SqlStatement.of(
          "retention_delete_history",
          """
          DELETE FROM app_generation_transitions
          WHERE id = ANY (ARRAY(SELECT id FROM app_generation_transitions
                                WHERE operation_id = ANY (?::text[]) LIMIT ?))
          """);

  /**
   * At most {@code limit} reservations of these operations, as {@link #DELETE_HISTORY} does: an
   * operation dispatched again and again (rate limited, not sent) holds one per attempt. None of
   * them is counted any more ({@link #DUE} kept the operations that have one).
   */
  static final SqlStatement DELETE_RESERVATIONS =
      SqlStatement.of(
          "retention_delete_reservations",
          """
          DELETE FROM app_dispatch_reservations
          WHERE id = ANY (ARRAY(SELECT id FROM app_dispatch_reservations
                                WHERE operation_id = ANY (?::text[]) LIMIT ?))
          """);

  /** Runs a chunked delete ({@code operation ids, limit}) until a chunk comes short. */
  private long deleteInChunks(SqlStatement statement, List<String> operationIds, int chunk) {
    long deleted = 0;
    int last;
    do {
      last =
          sql.update(
              statement,
              p ->
                  p.texts(operationIds) // operation_id
                      .integer(chunk)); // LIMIT
      deleted += last;
    } while (last == chunk);
    return deleted;
  }

  /** Deletes those operations that are still due, as {@link #DUE} decides it. */
  static final SqlStatement DELETE_OPERATIONS =
      SqlStatement.of(
          "retention_delete_operations",
          """
          DELETE FROM app_generation_operations o
          WHERE o.operation_id = ANY (?::text[])
            AND o.next_action = 'none'
            AND o.phase_since < statement_timestamp() - ?::interval
            AND NOT EXISTS (SELECT 1 FROM app_dispatch_reservations r
                            WHERE r.operation_id = o.operation_id
                              AND (r.state = 'in_flight'
                                   OR r.reserved_at > statement_timestamp() - ?::interval))
          RETURNING o.operation_id
          """);

  /** The deleted operations' evidence, reservations and any history row left, by their indexes. */
  static final SqlStatement DELETE_DEPENDENTS =
      SqlStatement.of(
          "retention_delete_dependents",
          """
          WITH history AS (
            DELETE FROM app_generation_transitions WHERE operation_id = ANY (?::text[])
            RETURNING 1),
          evidence AS (
            DELETE FROM app_review_evidence WHERE operation_id = ANY (?::text[])
            RETURNING 1),
          evidence_kept AS (
            DELETE FROM app_review_evidence_history WHERE operation_id = ANY (?::text[])
            RETURNING 1),
          reservations AS (
            DELETE FROM app_dispatch_reservations WHERE operation_id = ANY (?::text[])
            RETURNING 1)
          SELECT (SELECT count(*) FROM history) AS history,
                 (SELECT count(*) FROM evidence) + (SELECT count(*) FROM evidence_kept)
                   AS evidence,
                 (SELECT count(*) FROM reservations) AS reservations
          """);

  private void delete(
      List<String> operationIds, Duration window, Duration allowanceWindow, Counts counts) {
    sql.inTransaction(
        DELETE_OPERATIONS,
        tx -> {
          List<String> deleted =
              tx.query(
                  DELETE_OPERATIONS,
                  p ->
                      p.texts(operationIds) // operation_id
                          .interval(window) // phase_since older than the window
                          .interval(allowanceWindow), // reservations.reserved_at
                  rs -> rs.getString("operation_id"));
          counts.operations += deleted.size();
          if (deleted.isEmpty()) {
            return null;
          }
          tx.queryExactlyOne(
              DELETE_DEPENDENTS,
              p ->
                  p.texts(deleted) // transitions.operation_id
                      .texts(deleted) // evidence.operation_id
                      .texts(deleted) // evidence_history.operation_id
                      .texts(deleted), // reservations.operation_id
              rs -> {
                counts.transitions += rs.getLong("history");
                counts.evidence += rs.getLong("evidence");
                counts.reservations += rs.getLong("reservations");
                return Boolean.TRUE;
              });
          return null;
        });
  }
}
