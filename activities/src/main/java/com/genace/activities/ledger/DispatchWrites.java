package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.NextAction;

/**
 * The dispatch lease's writes, each one fenced write ({@link FencedWrite}): denied unless the
 * caller's dispatch lease is live, not permitted outside the phase it leaves, and in the history
 * either way.
 */
final class DispatchWrites {

  private final Sql sql;

  DispatchWrites(Sql sql) {
    this.sql = sql;
  }

  /**
   * What entering {@code submitting} records besides the phase, whichever statement makes the move
   * (this one, or {@link Claims#CLAIM_TO_SUBMIT} with its claim): since when, one more attempt, and
   * no outcome yet.
   */
  static final String SUBMITTING_COLUMNS =
      """
      submitting_since = clock_timestamp(),
      dispatch_attempts = o.dispatch_attempts + 1,
      dispatch_outcome = NULL, dispatch_detail = NULL, updated_at = clock_timestamp()
      """;

  /** pending → submitting: the evidence that a POST may leave, committed before it does. */
  static final SqlStatement MARK_SUBMITTING =
      FencedWrite.named("mark_submitting")
          .action(NextAction.DISPATCH)
          .args("details jsonb")
          .moves(Transitions.SUBMITTING_EVENT)
          .set(SUBMITTING_COLUMNS)
          // Not once a cancel was requested (V17): a cancel accepted between the claim and this
          // write still stops the POST.
          .permittedWhen("o.cancel_requested_at IS NULL")
          .toStatement();

  FenceOutcome markSubmitting(Lease lease, String details) {
    return FencedWrite.write(
        sql, MARK_SUBMITTING, lease, p -> p.json(details)); // transitions.details
  }

  /**
   * submitting → observing: Genace accepted the POST as {@code remote_job_id}. The operation goes
   * on the poll schedule at once ({@link PollSchedule#UNCLAIMED_FIRST_POLL}), so that it is
   * observed whether or not Temporal starts the activity that waits for it soon. The render's
   * estimated credits are committed with it ({@link CreditEstimate}, V18). A second acceptance (a
   * dispatch again after an operator's {@code not_submitted} on a row that held a job) adds its
   * credits to the first one's: both renders were paid, and {@code ops spend} counts both; the
   * first job id stays in its own {@code accepted} transition.
   */
  static final SqlStatement RECORD_ACCEPTED =
      FencedWrite.named("record_accepted")
          .action(NextAction.DISPATCH)
          .args(
              "details jsonb",
              "remote_job_id text",
              "first_poll_in interval",
              "costs jsonb",
              "default_cost bigint")
          .moves(Transitions.ACCEPTED)
          .set(
              """
              remote_job_id = a.remote_job_id,
              credits = CASE WHEN o.credits_committed_at IS NOT NULL
                                  AND o.remote_job_id IS DISTINCT FROM a.remote_job_id
                             THEN o.credits + %1$s ELSE %1$s END,
              credits_committed_at = clock_timestamp(),
              dispatch_outcome = 'accepted', dispatch_detail = NULL,
              lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp(),
              poll_due_at = clock_timestamp() + a.first_poll_in, poll_count = 0,
              observer_workflow_id = NULL, observer_run_id = NULL,
              observer_activity_id = NULL, observer_traceparent = NULL
              """
                  .formatted(CreditEstimate.SQL_COST))
          .toStatement();

  FenceOutcome recordAccepted(
      Lease lease, String details, String remoteJobId, CreditEstimate estimate) {
    return FencedWrite.write(
        sql,
        RECORD_ACCEPTED,
        lease,
        p ->
            p.json(details) // transitions.details
                .text(remoteJobId) // remote_job_id
                .interval(PollSchedule.UNCLAIMED_FIRST_POLL) // poll_due_at - clock_timestamp()
                .json(estimate.json()) // credits, by the row's model
                .bigint(estimate.defaultCost())); // credits of a model not listed
  }

  /** submitting → pending: the POST provably created nothing, so dispatching again is safe. */
  static final SqlStatement RECORD_NOT_SENT =
      FencedWrite.named("record_not_sent")
          .action(NextAction.DISPATCH)
          .args("details jsonb", "outcome text", "detail text")
          .moves(Transitions.NOT_SENT)
          .set(
              """
              dispatch_outcome = a.outcome, dispatch_detail = a.detail,
              lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
              """)
          .toStatement();

  FenceOutcome recordNotSent(Lease lease, String details, String outcome, String detail) {
    return FencedWrite.write(
        sql,
        RECORD_NOT_SENT,
        lease,
        p ->
            p.json(details) // transitions.details
                .text(outcome) // dispatch_outcome
                .text(detail)); // dispatch_detail
  }

  /** submitting → failed: Genace refused the request and created nothing. */
  static final SqlStatement RECORD_REFUSED =
      FencedWrite.named("record_refused")
          .action(NextAction.DISPATCH)
          .args("details jsonb", "detail text")
          .moves(Transitions.REFUSED)
          .set(
              """
              dispatch_outcome = 'refused',
              dispatch_detail = a.detail, failure_reason = a.detail,
              lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
              """)
          .toStatement();

  FenceOutcome recordRefused(Lease lease, String details, String detail) {
    return FencedWrite.write(
        sql,
        RECORD_REFUSED,
        lease,
        p ->
            p.json(details) // transitions.details
                .text(detail)); // dispatch_detail, failure_reason
  }
}
