package com.genace.ledger;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;

/**
 * Opening and resolving an uncertainty review; each one statement shaped as in {@link
 * DispatchWrites}.
 */
final class ReviewWrites {

  private final Sql sql;

  ReviewWrites(Sql sql) {
    this.sql = sql;
  }

  /**
   * pending, submitting or observing → in_review, under whichever lease the caller holds. From
   * submitting, the dispatch outcome becomes unknown: a POST may have left.
   */
  static final SqlStatement OPEN_REVIEW =
      SqlStatement.of(
          "open_review",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::text AS action, ?::jsonb AS details, ?::text AS reason, ?::text AS detail
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = a.action AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET phase = 'in_review', next_action = 'reconcile',
                review_reason = a.reason, review_opened_at = clock_timestamp(),
                review_resolution = NULL, review_resolved_by = NULL,
                review_resolved_at = NULL, review_note = NULL,
                dispatch_outcome = CASE WHEN o.phase = 'submitting' THEN 'unknown'
                                        ELSE o.dispatch_outcome END,
                dispatch_detail = CASE WHEN o.phase = 'submitting' THEN a.detail
                                       ELSE o.dispatch_detail END,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = a.action AND o.lease_until > clock_timestamp()
              AND o.phase IN ('pending', 'submitting', 'observing')
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'review_opened', cur.phase, upd.phase,
                   upd.phase IS NOT NULL,
                   CASE WHEN upd.phase IS NOT NULL THEN a.details
                        WHEN cur.fenced THEN a.details || '{"denied": "not_permitted"}'
                        ELSE a.details || '{"denied": "lease"}' END
            FROM args a CROSS JOIN cur LEFT JOIN upd ON true
          )
          SELECT (SELECT count(*) FROM cur) AS found,
                 coalesce((SELECT fenced FROM cur), false) AS fenced,
                 (SELECT count(*) FROM upd) AS applied,
                 NULL::timestamptz AS lease_until
          """);

  FenceOutcome openReview(Lease lease, String details, String reason, String detail) {
    return sql.queryExactlyOne(
        OPEN_REVIEW,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .text(lease.action().wire()) // next_action
                .json(details) // transitions.details
                .text(reason) // review_reason
                .text(detail), // dispatch_detail
        FenceOutcome::read);
  }

  /**
   * in_review → observing (the operator found the remote job), pending (nothing was submitted:
   * dispatch again) or abandoned; under a reconcile lease. The stored snapshot is cleared so that
   * observation starts afresh, and a found job goes on the poll schedule as an accepted POST's
   * does.
   */
  static final SqlStatement RESOLVE_REVIEW =
      SqlStatement.of(
          "resolve_review",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::jsonb AS details, ?::text AS decision, ?::text AS remote_job_id,
                   ?::text AS resolved_by, ?::text AS note, ?::interval AS first_poll_in
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = 'reconcile' AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET phase = CASE a.decision WHEN 'found_remote_job' THEN 'observing'
                                        WHEN 'not_submitted' THEN 'pending'
                                        ELSE 'abandoned' END,
                next_action = CASE a.decision WHEN 'found_remote_job' THEN 'observe'
                                              WHEN 'not_submitted' THEN 'dispatch'
                                              ELSE 'none' END,
                remote_job_id = CASE WHEN a.decision = 'found_remote_job' THEN a.remote_job_id
                                     ELSE o.remote_job_id END,
                remote_status = NULL, remote_status_rank = NULL, remote_snapshot = NULL,
                review_resolution = a.decision, review_resolved_by = a.resolved_by,
                review_resolved_at = clock_timestamp(), review_note = a.note,
                failure_reason = CASE WHEN a.decision = 'abandon' THEN a.note
                                      ELSE o.failure_reason END,
                poll_due_at = CASE WHEN a.decision = 'found_remote_job'
                                   THEN clock_timestamp() + a.first_poll_in END,
                poll_count = 0, observer_workflow_id = NULL, observer_run_id = NULL,
                observer_activity_id = NULL, observer_traceparent = NULL,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = 'reconcile' AND o.lease_until > clock_timestamp()
              AND o.phase = 'in_review'
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'review_resolved', cur.phase, upd.phase,
                   upd.phase IS NOT NULL,
                   CASE WHEN upd.phase IS NOT NULL THEN a.details
                        WHEN cur.fenced THEN a.details || '{"denied": "not_permitted"}'
                        ELSE a.details || '{"denied": "lease"}' END
            FROM args a CROSS JOIN cur LEFT JOIN upd ON true
          )
          SELECT (SELECT count(*) FROM cur) AS found,
                 coalesce((SELECT fenced FROM cur), false) AS fenced,
                 (SELECT count(*) FROM upd) AS applied,
                 NULL::timestamptz AS lease_until
          """);

  FenceOutcome resolveReview(
      Lease lease,
      String details,
      String decision,
      String remoteJobId,
      String resolvedBy,
      String note) {
    return sql.queryExactlyOne(
        RESOLVE_REVIEW,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .json(details) // transitions.details
                .text(decision) // review_resolution
                .text(remoteJobId) // remote_job_id (found_remote_job only)
                .text(resolvedBy) // review_resolved_by
                .text(note) // review_note, failure_reason (abandon)
                .interval(PollSchedule.UNCLAIMED_FIRST_POLL), // poll_due_at (found_remote_job)
        FenceOutcome::read);
  }
}
