package com.genace.ledger;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;

/**
 * The dispatch lease's writes. Each is one statement that:
 *
 * <ol>
 *   <li>reads the row ({@code cur}) to tell a denied write (owner, revision, action or expiry no
 *       longer match) from one that is not permitted in the current phase;
 *   <li>updates the row only if the fence holds and the phase permits the transition; the fence is
 *       in the UPDATE's own WHERE, so a concurrent change is re-checked under the row lock;
 *   <li>appends the transition to the history, or a diagnostic row ({@code denied}: {@code lease}
 *       or {@code not_permitted}) when nothing changed;
 *   <li>returns found / fenced / applied (see {@link FenceOutcome}).
 * </ol>
 */
final class DispatchWrites {

  private final Sql sql;

  DispatchWrites(Sql sql) {
    this.sql = sql;
  }

  /** pending → submitting: the evidence that a POST may leave, committed before it does. */
  static final SqlStatement MARK_SUBMITTING =
      SqlStatement.of(
          "mark_submitting",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::jsonb AS details
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET phase = 'submitting', submitting_since = clock_timestamp(),
                dispatch_attempts = o.dispatch_attempts + 1,
                dispatch_outcome = NULL, dispatch_detail = NULL, updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()
              AND o.phase = 'pending'
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'submitting', cur.phase, upd.phase,
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

  FenceOutcome markSubmitting(Lease lease, String details) {
    return sql.queryExactlyOne(
        MARK_SUBMITTING,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .json(details), // transitions.details
        FenceOutcome::read);
  }

  /**
   * submitting → observing: Genace accepted the POST as {@code remote_job_id}. The operation goes
   * on the poll schedule at once ({@link PollSchedule#UNCLAIMED_FIRST_POLL}), so that it is
   * observed whether or not Temporal starts the activity that waits for it soon.
   */
  static final SqlStatement RECORD_ACCEPTED =
      SqlStatement.of(
          "record_accepted",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::jsonb AS details, ?::text AS remote_job_id, ?::interval AS first_poll_in
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET phase = 'observing', next_action = 'observe', remote_job_id = a.remote_job_id,
                dispatch_outcome = 'accepted', dispatch_detail = NULL,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp(),
                poll_due_at = clock_timestamp() + a.first_poll_in, poll_count = 0,
                observer_workflow_id = NULL, observer_run_id = NULL,
                observer_activity_id = NULL, observer_traceparent = NULL
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()
              AND o.phase = 'submitting'
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'accepted', cur.phase, upd.phase,
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

  FenceOutcome recordAccepted(Lease lease, String details, String remoteJobId) {
    return sql.queryExactlyOne(
        RECORD_ACCEPTED,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .json(details) // transitions.details
                .text(remoteJobId) // remote_job_id
                .interval(PollSchedule.UNCLAIMED_FIRST_POLL), // poll_due_at - clock_timestamp()
        FenceOutcome::read);
  }

  /** submitting → pending: the POST provably created nothing, so dispatching again is safe. */
  static final SqlStatement RECORD_NOT_SENT =
      SqlStatement.of(
          "record_not_sent",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::jsonb AS details, ?::text AS outcome, ?::text AS detail
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET phase = 'pending', dispatch_outcome = a.outcome, dispatch_detail = a.detail,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()
              AND o.phase = 'submitting'
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'not_sent', cur.phase, upd.phase,
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

  FenceOutcome recordNotSent(Lease lease, String details, String outcome, String detail) {
    return sql.queryExactlyOne(
        RECORD_NOT_SENT,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .json(details) // transitions.details
                .text(outcome) // dispatch_outcome
                .text(detail), // dispatch_detail
        FenceOutcome::read);
  }

  /** submitting → failed: Genace refused the request and created nothing. */
  static final SqlStatement RECORD_REFUSED =
      SqlStatement.of(
          "record_refused",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::jsonb AS details, ?::text AS detail
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET phase = 'failed', next_action = 'none', dispatch_outcome = 'refused',
                dispatch_detail = a.detail, failure_reason = a.detail,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = 'dispatch' AND o.lease_until > clock_timestamp()
              AND o.phase = 'submitting'
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'refused', cur.phase, upd.phase,
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

  FenceOutcome recordRefused(Lease lease, String details, String detail) {
    return sql.queryExactlyOne(
        RECORD_REFUSED,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .json(details) // transitions.details
                .text(detail), // dispatch_detail, failure_reason
        FenceOutcome::read);
  }
}
