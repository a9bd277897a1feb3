package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;

/**
 * The ledger's repairs from the other store, Temporal's history: a row behind what the history
 * holds moves forward to it ({@link Transitions#RECOVERED}, {@link Transitions#RECOVERED_END}), and
 * a row the ledger lost is written again at the phase the history shows. Each one statement, fenced
 * by the revision the repairer read and a free lease ({@link FencedWrite#atRevisionRead}): a repair
 * never goes over a worker that holds the row, and never backwards (the table lets each event leave
 * only the phases behind the one it goes to). A repair that does not apply leaves no history row:
 * the row changed meanwhile, and whoever changed it is alive.
 */
final class RepairWrites {

  private final Sql sql;

  RepairWrites(Sql sql) {
    this.sql = sql;
  }

  /**
   * What committing an acceptance found in the other store records: the job, and its credits unless
   * the row's were committed already (as Temporal's history knew them, else the estimate of the
   * row's model).
   */
  private static final String ACCEPTANCE =
      """
      remote_job_id = coalesce(a.remote_job_id, o.remote_job_id),
      credits = CASE WHEN o.credits_committed_at IS NULL AND a.remote_job_id IS NOT NULL
                     THEN coalesce(a.credits, %s) ELSE o.credits END,
      credits_committed_at = CASE WHEN a.remote_job_id IS NOT NULL
                                  THEN coalesce(o.credits_committed_at, clock_timestamp())
                                  ELSE o.credits_committed_at END,
      dispatch_outcome = CASE WHEN a.remote_job_id IS NOT NULL THEN 'accepted'
                              ELSE o.dispatch_outcome END,
      review_resolution = CASE WHEN o.phase = 'in_review' THEN 'recovered'
                               ELSE o.review_resolution END,
      review_resolved_by = CASE WHEN o.phase = 'in_review' THEN 'reconciler'
                                ELSE o.review_resolved_by END,
      review_resolved_at = CASE WHEN o.phase = 'in_review' THEN clock_timestamp()
                                ELSE o.review_resolved_at END,
      review_note = CASE WHEN o.phase = 'in_review' THEN a.note ELSE o.review_note END,
      revision = o.revision + 1, lease_owner = NULL, lease_until = NULL,
      updated_at = clock_timestamp()
      """
          .formatted(CreditEstimate.SQL_COST);

  /**
   * pending, submitting or in_review → observing the job the other store holds, on the poll
   * schedule at once, as an accepted POST's.
   */
  static final SqlStatement RECOVER_OBSERVING =
      FencedWrite.named("recover_observing")
          .atRevisionRead()
          .args(
              "details jsonb",
              "remote_job_id text",
              "credits bigint",
              "note text",
              "first_poll_in interval",
              "costs jsonb",
              "default_cost bigint")
          .moves(Transitions.RECOVERED)
          .set(
              ACCEPTANCE
                  + """
                  , remote_status = NULL, remote_status_rank = NULL, remote_snapshot = NULL,
                  poll_due_at = clock_timestamp() + a.first_poll_in, poll_count = 0,
                  observer_workflow_id = NULL, observer_run_id = NULL,
                  observer_activity_id = NULL, observer_traceparent = NULL
                  """)
          .permittedWhen("a.remote_job_id IS NOT NULL")
          .quietWhen("upd.phase IS NULL")
          .toStatement();

  FenceOutcome recoverObserving(
      String operationId,
      long revision,
      String owner,
      String details,
      String remoteJobId,
      Long credits,
      String note,
      CreditEstimate estimate) {
    return FencedWrite.writeAtRevision(
        sql,
        RECOVER_OBSERVING,
        operationId,
        revision,
        owner,
        p ->
            p.json(details) // transitions.details
                .text(remoteJobId) // remote_job_id
                .bigintOrNull(credits) // credits, as Temporal's history knew them
                .text(note) // review_note (from in_review)
                .interval(PollSchedule.UNCLAIMED_FIRST_POLL) // poll_due_at - clock_timestamp()
                .json(estimate.json()) // credits otherwise, by the row's model
                .bigint(estimate.defaultCost())); // credits of a model not listed
  }

  /**
   * Any unfinished phase → delivered (with the manifest of the delivery the history holds, its
   * artifacts found in the store), failed or abandoned (with the history's reason), as a run of the
   * operation ended.
   */
  static final SqlStatement RECOVER_END =
      FencedWrite.named("recover_end")
          .atRevisionRead()
          .args(
              "details jsonb",
              "ended text",
              "remote_job_id text",
              "credits bigint",
              "manifest jsonb",
              "note text",
              "costs jsonb",
              "default_cost bigint")
          .moves(Transitions.RECOVERED_END)
          .set(
              ACCEPTANCE
                  + """
                  , delivery_manifest = CASE WHEN a.ended = 'delivered' THEN a.manifest
                                           ELSE o.delivery_manifest END,
                  failure_reason = CASE WHEN a.ended = 'delivered' THEN o.failure_reason
                                        ELSE a.note END,
                  poll_due_at = NULL
                  """)
          .permittedWhen("a.ended <> 'delivered' OR a.manifest IS NOT NULL")
          .quietWhen("upd.phase IS NULL")
          .toStatement();

  FenceOutcome recoverEnd(
      String operationId,
      long revision,
      String owner,
      String details,
      String ended,
      String remoteJobId,
      Long credits,
      String manifestJson,
      String note,
      CreditEstimate estimate) {
    return FencedWrite.writeAtRevision(
        sql,
        RECOVER_END,
        operationId,
        revision,
        owner,
        p ->
            p.json(details) // transitions.details
                .text(ended) // phase: delivered, failed or abandoned
                .text(remoteJobId) // remote_job_id, if the history holds one
                .bigintOrNull(credits) // credits, as Temporal's history knew them
                .json(manifestJson) // delivery_manifest (delivered)
                .text(note) // failure_reason (failed, abandoned), review_note (from in_review)
                .json(estimate.json()) // credits otherwise, by the row's model
                .bigint(estimate.defaultCost())); // credits of a model not listed
  }

  /**
   * A row the ledger lost (restored from a backup older than the operation), written again from
   * Temporal's history at the phase it shows: observing its job (on the poll schedule), ended, in
   * review, or pending when nothing was sent. Idempotent: a row that exists is left as it is. Its
   * history starts with {@code recreated}.
   */
  static final SqlStatement RECREATE =
      SqlStatement.of(
          "recreate",
          """
          WITH a AS (
            SELECT ?::text AS operation_id, ?::text AS phase, ?::text AS model, ?::jsonb AS request,
                   ?::text AS account, ?::text AS remote_job_id, ?::bigint AS credits,
                   ?::jsonb AS manifest, ?::text AS note, ?::text AS review_reason,
                   ?::interval AS first_poll_in, ?::text AS owner, ?::jsonb AS details
          ),
          ins AS (
            INSERT INTO app_generation_operations
                (operation_id, phase, next_action, model, request, account, remote_job_id,
                 credits, credits_committed_at, dispatch_outcome, delivery_manifest,
                 failure_reason, review_reason, review_opened_at, poll_due_at)
            SELECT a.operation_id, a.phase,
                   CASE a.phase WHEN 'pending' THEN 'dispatch' WHEN 'observing' THEN 'observe'
                                WHEN 'in_review' THEN 'reconcile' ELSE 'none' END,
                   a.model, a.request, a.account, a.remote_job_id, a.credits,
                   CASE WHEN a.remote_job_id IS NOT NULL THEN clock_timestamp() END,
                   CASE WHEN a.remote_job_id IS NOT NULL THEN 'accepted' END,
                   CASE WHEN a.phase = 'delivered' THEN a.manifest END,
                   CASE WHEN a.phase IN ('failed', 'abandoned') THEN a.note END,
                   CASE WHEN a.phase = 'in_review' THEN a.review_reason END,
                   CASE WHEN a.phase = 'in_review' THEN clock_timestamp() END,
                   CASE WHEN a.phase = 'observing' THEN clock_timestamp() + a.first_poll_in END
            FROM a
            ON CONFLICT (operation_id) DO NOTHING
            RETURNING operation_id, phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT ins.operation_id, 0, a.owner, 'recreated', NULL, ins.phase, true, a.details
            FROM ins CROSS JOIN a
          )
          SELECT count(*) AS created FROM ins
          """);

  /** What {@link #RECREATE} writes. */
  record Recreated(
      NewOperation operation,
      String phase,
      String remoteJobId,
      Long credits,
      String manifestJson,
      String note,
      String reviewReason) {}

  boolean recreate(Recreated row, String owner, String details) {
    return sql.queryExactlyOne(
            RECREATE,
            p ->
                p.text(row.operation().operationId()) // operation_id
                    .text(row.phase()) // phase (and its next_action)
                    .text(row.operation().model()) // model
                    .json(row.operation().inputJson()) // request
                    .text(row.operation().account()) // account
                    .text(row.remoteJobId()) // remote_job_id
                    .bigintOrNull(row.credits()) // credits
                    .json(row.manifestJson()) // delivery_manifest (delivered)
                    .text(row.note()) // failure_reason (failed, abandoned)
                    .text(row.reviewReason()) // review_reason (in_review)
                    .interval(PollSchedule.UNCLAIMED_FIRST_POLL) // poll_due_at (observing)
                    .text(owner) // transitions.owner
                    .json(details), // transitions.details
            rs -> rs.getLong("created"))
        == 1;
  }
}
