package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.NextAction;

/** Opening and resolving an uncertainty review; each a fenced write ({@link FencedWrite}). */
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
      FencedWrite.named("open_review")
          .actionOfTheLease()
          .args("details jsonb", "reason text", "detail text")
          .moves(Transitions.REVIEW_OPENED)
          .set(
              """
              review_reason = a.reason, review_opened_at = clock_timestamp(),
              review_resolution = NULL, review_resolved_by = NULL,
              review_resolved_at = NULL, review_note = NULL,
              dispatch_outcome = CASE WHEN o.phase = 'submitting' THEN 'unknown'
                                      ELSE o.dispatch_outcome END,
              dispatch_detail = CASE WHEN o.phase = 'submitting' THEN a.detail
                                     ELSE o.dispatch_detail END,
              lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
              """)
          .toStatement();

  FenceOutcome openReview(Lease lease, String details, String reason, String detail) {
    return FencedWrite.write(
        sql,
        OPEN_REVIEW,
        lease,
        p ->
            p.json(details) // transitions.details
                .text(reason) // review_reason
                .text(detail)); // dispatch_detail
  }

  /**
   * in_review → observing (the operator found the remote job), pending (nothing was submitted:
   * dispatch again) or abandoned; under a reconcile lease. The stored snapshot is cleared so that
   * observation starts afresh, and a found job goes on the poll schedule as an accepted POST's
   * does. A found job is an acceptance: its estimated credits are committed ({@link
   * CreditEstimate}, V18) unless the operation's were already (a review opened while observing).
   */
  static final SqlStatement RESOLVE_REVIEW =
      FencedWrite.named("resolve_review")
          .action(NextAction.RECONCILE)
          .args(
              "details jsonb",
              "decision text",
              "remote_job_id text",
              "resolved_by text",
              "note text",
              "first_poll_in interval",
              "costs jsonb",
              "default_cost bigint")
          .moves(Transitions.REVIEW_RESOLVED)
          .set(
              """
              remote_job_id = CASE WHEN a.decision = 'found_remote_job' THEN a.remote_job_id
                                   ELSE o.remote_job_id END,
              credits = CASE WHEN a.decision = 'found_remote_job'
                                  AND o.credits_committed_at IS NULL THEN %s
                             ELSE o.credits END,
              credits_committed_at = CASE WHEN a.decision = 'found_remote_job'
                                          THEN coalesce(o.credits_committed_at, clock_timestamp())
                                          ELSE o.credits_committed_at END,
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
              """
                  .formatted(CreditEstimate.SQL_COST))
          .toStatement();

  FenceOutcome resolveReview(
      Lease lease,
      String details,
      String decision,
      String remoteJobId,
      String resolvedBy,
      String note,
      CreditEstimate estimate) {
    return FencedWrite.write(
        sql,
        RESOLVE_REVIEW,
        lease,
        p ->
            p.json(details) // transitions.details
                .text(decision) // review_resolution
                .text(remoteJobId) // remote_job_id (found_remote_job only)
                .text(resolvedBy) // review_resolved_by
                .text(note) // review_note, failure_reason (abandon)
                .interval(PollSchedule.UNCLAIMED_FIRST_POLL) // poll_due_at (found_remote_job)
                .json(estimate.json()) // credits (found_remote_job), by the row's model
                .bigint(estimate.defaultCost())); // credits of a model not listed
  }
}
