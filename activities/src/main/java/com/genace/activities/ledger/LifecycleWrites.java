package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Ending an operation from outside its normal course: a cancellation (under a lease, like every
 * exclusive write) and the orphan sweeper's move to review (fenced by the revision it read and a
 * free lease). Each one statement; the cancellation a fenced write ({@link FencedWrite}).
 */
final class LifecycleWrites {

  private final Sql sql;

  LifecycleWrites(Sql sql) {
    this.sql = sql;
  }

  /**
   * pending, observing, delivering or in_review → abandoned, with who and why in {@code
   * failure_reason}; the remote job id, the last snapshot, the review case and any delivery
   * manifest stay as they are, so that a paid render is never forgotten. Never from submitting: a
   * POST may have left. The row keeps the cancel request it held ({@link #REQUEST_CANCEL}), or gets
   * this one's who and why (a Temporal cancel request, one accepted before the operation was
   * registered).
   */
  static final SqlStatement CANCEL =
      FencedWrite.named("cancel")
          .actionOfTheLease()
          .args("details jsonb", "failure_reason text")
          .moves(Transitions.CANCELLED)
          .set(
              """
              failure_reason = a.failure_reason,
              lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp(),
              cancel_requested_at = coalesce(o.cancel_requested_at, clock_timestamp()),
              cancel_requested_by = coalesce(o.cancel_requested_by, a.details->>'requested_by'),
              cancel_reason = coalesce(o.cancel_reason, a.details->>'reason')
              """)
          .toStatement();

  FenceOutcome cancel(Lease lease, String details, String failureReason) {
    return FencedWrite.write(
        sql,
        CANCEL,
        lease,
        p ->
            p.json(details) // transitions.details
                .text(failureReason)); // failure_reason
  }

  /**
   * Accepts a cancel request into the row: when, by whom, why, and whether a render Genace accepted
   * is still delivered. The first request stays (a second one changes nothing); an ended operation
   * is left as it is. No new revision and no lease: a dispatch holding its lease while its POST is
   * in flight still records the outcome, and the claim that would send a POST (pending →
   * submitting) refuses the row from now on. Row-locked like every UPDATE, so a claim running at
   * the same moment is either committed first (its POST's outcome decides, as for any cancel of a
   * POST in flight) or sees the request and refuses.
   *
   * <p>Returns the row's phase and whether this statement recorded the request; no row when the
   * operation is unknown.
   */
  static final SqlStatement REQUEST_CANCEL =
      SqlStatement.of(
          "request_cancel",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS requested_by, ?::text AS reason,
                   ?::boolean AS deliver_rendering
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET cancel_requested_at = clock_timestamp(), cancel_requested_by = a.requested_by,
                cancel_reason = a.reason, cancel_deliver_rendering = a.deliver_rendering
            FROM args a
            WHERE o.operation_id = a.operation_id AND o.next_action <> 'none'
              AND o.cancel_requested_at IS NULL
            RETURNING o.operation_id
          )
          SELECT o.phase, (SELECT count(*) FROM upd) AS recorded,
                 o.cancel_requested_at IS NOT NULL AS held_before
          FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          """);

  /** What {@link #REQUEST_CANCEL} did. */
  record CancelRecorded(String phase, boolean recorded, boolean heldBefore) {}

  Optional<CancelRecorded> requestCancel(
      String operationId, String requestedBy, String reason, Boolean deliverRendering) {
    return sql.queryOne(
        REQUEST_CANCEL,
        p ->
            p.text(operationId) // operation_id
                .text(requestedBy) // cancel_requested_by
                .text(reason) // cancel_reason
                .boolOrNull(deliverRendering), // cancel_deliver_rendering
        rs ->
            new CancelRecorded(
                rs.getString("phase"), rs.getLong("recorded") == 1, rs.getBoolean("held_before")));
  }

  /**
   * A cancel request for an operation that had already ended: kept in its history (not accepted, as
   * it changed nothing), the row untouched. The row is locked against deletion ({@code FOR KEY
   * SHARE}) while the history row goes in, so that the retention, which deletes an ended operation
   * and then its history, never leaves this one behind.
   */
  static final SqlStatement NOTE_CANCEL_AFTER_END =
      SqlStatement.of(
          "note_cancel_after_end",
          """
          INSERT INTO app_generation_transitions
              (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
          SELECT o.operation_id, o.revision, ?, 'cancel_requested', o.phase, NULL, false,
                 ?::jsonb || '{"denied": "already_ended"}'
          FROM app_generation_operations o
          WHERE o.operation_id = ? AND o.next_action = 'none'
          FOR KEY SHARE OF o
          """);

  int noteCancelAfterEnd(String operationId, String owner, String details) {
    return sql.update(
        NOTE_CANCEL_AFTER_END,
        p ->
            p.text(owner) // transitions.owner
                .json(details) // transitions.details
                .text(operationId)); // operation_id
  }

  /** An operation that is not terminal, as the sweeper reads it. */
  record Unfinished(
      String operationId,
      long revision,
      String phase,
      String model,
      String input,
      String account,
      Instant createdAt) {}

  /**
   * One page of the sweeper's walk: the unfinished operations after a position in {@code (phase,
   * created_at)} order, the order of the partial index over unfinished operations ({@code (phase,
   * created_at) WHERE next_action <> 'none'}). Each page is one range scan of it that starts at the
   * position and stops after the page, whatever the size of the history or of the walk: no sort.
   * Operations created in the same microsecond as the page's last one come with it ({@code WITH
   * TIES}), so that a position of phase and time never splits them; {@code created_at} defaults to
   * {@code clock_timestamp()}, so such groups are rare and small.
   */
  static final SqlStatement LIST_UNFINISHED_AFTER =
      SqlStatement.of(
          "list_unfinished_after",
          """
          SELECT operation_id, revision, phase, model, request::text AS request, account,
                 created_at
          FROM app_generation_operations
          WHERE next_action <> 'none'
            AND (phase, created_at) > (?::text, ?::timestamptz)
          ORDER BY phase, created_at
          FETCH FIRST ? ROWS WITH TIES
          """);

  List<Unfinished> listUnfinishedAfter(SweepPosition after, int limit) {
    return sql.query(
        LIST_UNFINISHED_AFTER,
        p ->
            p.text(after.phase()) // phase
                .timestamp(after.createdAt()) // created_at
                .integer(limit), // FETCH FIRST
        LifecycleWrites::unfinished);
  }

  private static Unfinished unfinished(ResultSet rs) throws SQLException {
    return new Unfinished(
        rs.getString("operation_id"),
        rs.getLong("revision"),
        rs.getString("phase"),
        rs.getString("model"),
        rs.getString("request"),
        rs.getString("account"),
        Sql.instant(rs, "created_at").orElseThrow());
  }

  /**
   * Any unfinished phase → in_review, for an operation whose workflow closed: fenced by the
   * revision the sweeper read (nothing changed since it looked) and a free or expired lease (no
   * activity is still writing). The phases it leaves ({@link Transitions#WORKFLOW_CLOSED}: every
   * unfinished one) are said as {@code next_action <> 'none'}, the same rows by the row rules, as
   * the sweeper reads them. A row already in review keeps its reason and case; the others get
   * {@code workflow_closed}. The close status is in the history row's details.
   */
  static final SqlStatement SWEEP_TO_REVIEW =
      SqlStatement.of(
          "sweep_to_review",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::bigint AS revision, ?::text AS owner,
                   ?::jsonb AS details
          ),
          cur AS (
            SELECT o.phase FROM app_generation_operations o
            JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET revision = o.revision + 1,
          %s,
                review_reason = CASE WHEN o.phase = 'in_review' THEN o.review_reason
                                     ELSE 'workflow_closed' END,
                review_opened_at = CASE WHEN o.phase = 'in_review' THEN o.review_opened_at
                                        ELSE clock_timestamp() END,
                dispatch_outcome = CASE WHEN o.phase = 'submitting' THEN 'unknown'
                                        ELSE o.dispatch_outcome END,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id AND o.revision = a.revision
              AND o.next_action <> 'none'
              AND %s
            RETURNING o.operation_id, o.revision
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT upd.operation_id, upd.revision, a.owner, '%s', cur.phase,
                   '%s', true, a.details
            FROM upd CROSS JOIN args a CROSS JOIN cur
          )
          SELECT count(*) AS applied FROM upd
          """
              .formatted(
                  Transitions.WORKFLOW_CLOSED.set(),
                  FencedWrite.leaseFree(),
                  Transitions.WORKFLOW_CLOSED.name(),
                  Transitions.WORKFLOW_CLOSED.onlyTarget().wire()));

  boolean sweepToReview(String operationId, long revision, String owner, String details) {
    long applied =
        sql.queryExactlyOne(
            SWEEP_TO_REVIEW,
            p ->
                p.text(operationId) // operation_id
                    .bigint(revision) // revision read by the sweeper
                    .text(owner) // transitions.owner
                    .json(details), // transitions.details
            rs -> rs.getLong("applied"));
    if (applied > 1) {
      throw new IllegalStateException("sweep changed " + applied + " rows of " + operationId);
    }
    return applied == 1;
  }
}
