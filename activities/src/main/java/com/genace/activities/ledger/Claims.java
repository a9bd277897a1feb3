package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.NextAction;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Taking an action on an operation: one UPDATE when the action can be taken, and at most one more
 * statement that says why not (or moves the operation to review). A claim changes no state, so it
 * leaves no history row; {@link #CLAIM_TO_SUBMIT} also makes the dispatch's first state change, and
 * leaves its row.
 */
final class Claims {

  private final Sql sql;

  Claims(Sql sql) {
    this.sql = sql;
  }

  /**
   * Installs a lease under a new revision when the operation's next action is {@code action} and
   * its lease is free, expired by the database's wall clock ({@code clock_timestamp()}, not the
   * transaction start), or held by the same owner: a worker never waits on its own lease, and the
   * new revision fences whatever it did under the old one. Dispatch also needs {@code pending} (a
   * {@code submitting} operation may have sent its POST); observation needs a non-blank remote job
   * id. A dispatch claim returns what the POST needs and a deliver claim the stored snapshot (the
   * outputs to copy), so the caller does not read the row again.
   */
  private static final String CLAIM_SQL =
      """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::text AS action,
                   ?::interval AS lease_length
          )
          UPDATE app_generation_operations o
          SET lease_owner = a.owner,
              lease_until = clock_timestamp() + a.lease_length,
              revision = o.revision + 1
          FROM args a
          WHERE o.operation_id = a.operation_id
            AND o.next_action = a.action
            AND (a.action <> 'dispatch' OR o.phase = 'pending')
            AND (a.action <> 'observe' OR btrim(coalesce(o.remote_job_id, '')) <> '')
            AND %s
            %s
          RETURNING o.revision, o.lease_until, o.remote_job_id, o.model, o.account,
                    CASE WHEN a.action = 'dispatch' THEN o.request::text END AS request,
                    CASE WHEN a.action = 'deliver' THEN o.remote_snapshot::text END AS snapshot
          """;

  /** Who may take a lease: anyone while it is free or expired, and its owner. */
  private static final String TAKEABLE = FencedWrite.leaseFreeOr("o.lease_owner = a.owner");

  static final SqlStatement CLAIM = SqlStatement.of("claim", CLAIM_SQL.formatted(TAKEABLE, ""));

  /**
   * {@link #CLAIM} for a dispatch that may go on to POST: it also refuses an operation whose cancel
   * was requested ({@code cancel_requested_at}, V17), so that no claim after an accepted cancel can
   * send anything. Same parameters as {@link #CLAIM}, whose action must be {@code dispatch}.
   */
  static final SqlStatement CLAIM_TO_POST =
      SqlStatement.of(
          "claim_to_post", CLAIM_SQL.formatted(TAKEABLE, "AND o.cancel_requested_at IS NULL"));

  record Claimed(
      long revision,
      java.time.Instant leaseUntil,
      Optional<String> remoteJobId,
      String model,
      String account,
      Optional<String> requestJson,
      Optional<String> snapshotJson) {}

  Optional<Claimed> claim(String operationId, String owner, NextAction action, Duration lease) {
    return claim(CLAIM, operationId, owner, action, lease);
  }

  Optional<Claimed> claimToPost(String operationId, String owner, Duration lease) {
    return claim(CLAIM_TO_POST, operationId, owner, NextAction.DISPATCH, lease);
  }

  private Optional<Claimed> claim(
      SqlStatement statement, String operationId, String owner, NextAction action, Duration lease) {
    return sql.queryOne(
        statement,
        p ->
            p.text(operationId) // operation_id
                .text(owner) // lease_owner
                .text(action.wire()) // next_action
                .interval(lease), // lease_until - clock_timestamp()
        Claims::claimed);
  }

  /**
   * A dispatch claim that also marks the operation {@code submitting} (the evidence that a POST may
   * leave, committed before it does): the claim and the first state change of a dispatch in one
   * statement. Eligibility and lease rules are {@link #CLAIM}'s for {@code dispatch}; in addition
   * nothing is claimed while dispatch is paused fleet-wide (the {@code dispatch_paused} row of
   * {@code app_worker_controls}, which the circuit also sets), so that the statement right before
   * the POST is also the fresh read of the pause, and a paused fleet writes nothing; and nothing is
   * claimed once a cancel was requested ({@link #CLAIM_TO_POST}). The action comes from the {@code
   * args} row, as in {@link FencedWrite#action}, so that the row is taken by its key, not found
   * among every pending operation through the unfinished index.
   */
  static final SqlStatement CLAIM_TO_SUBMIT =
      SqlStatement.of(
          "claim_to_submit",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::interval AS lease_length,
                   'dispatch'::text AS action
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET lease_owner = a.owner,
                lease_until = clock_timestamp() + a.lease_length,
                revision = o.revision + 1,
          %s,
          %s
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.next_action = a.action AND %s
              AND %s
              AND o.cancel_requested_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM app_worker_controls c
                              WHERE c.name = 'dispatch_paused' AND c.enabled)
            RETURNING o.operation_id, o.revision, o.lease_until, o.remote_job_id, o.model,
                      o.account, o.request::text AS request
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT upd.operation_id, upd.revision, a.owner, '%s', '%s', '%s',
                   true, '{}'::jsonb
            FROM upd CROSS JOIN args a
          )
          SELECT revision, lease_until, remote_job_id, model, account, request,
                 NULL::text AS snapshot
          FROM upd
          """
              .formatted(
                  Transitions.SUBMITTING_EVENT.set(),
                  DispatchWrites.SUBMITTING_COLUMNS.strip(),
                  Transitions.SUBMITTING_EVENT.permittedWhen(),
                  TAKEABLE,
                  Transitions.SUBMITTING_EVENT.name(),
                  Transitions.SUBMITTING_EVENT.onlyFrom().wire(),
                  Transitions.SUBMITTING_EVENT.onlyTarget().wire()));

  Optional<Claimed> claimToSubmit(String operationId, String owner, Duration lease) {
    return sql.queryOne(
        CLAIM_TO_SUBMIT,
        p ->
            p.text(operationId) // operation_id
                .text(owner) // lease_owner
                .interval(lease), // lease_until - clock_timestamp()
        Claims::claimed);
  }

  private static Claimed claimed(ResultSet rs) throws SQLException {
    return new Claimed(
        rs.getLong("revision"),
        Sql.instant(rs, "lease_until").orElseThrow(),
        Sql.text(rs, "remote_job_id"),
        rs.getString("model"),
        rs.getString("account"),
        Sql.text(rs, "request"),
        Sql.text(rs, "snapshot"));
  }

  /**
   * Runs when a claim acquired nothing. An operation that a POST may have left ({@code submitting}
   * under a dispatch claim) or an observation without a remote job id goes to review under a new
   * revision, never back to dispatch or observation. A {@code submitting} operation goes only once
   * its lease is free or expired, even for the same owner: its POST may still be in flight in this
   * very process, and its answer (a remote job id) must not be fenced out. Otherwise the statement
   * returns the row as it stands and whether a lease on this action is still live, by the
   * database's clock.
   */
  static final SqlStatement EXPLAIN_OR_DIVERT =
      SqlStatement.of(
          "explain_or_divert",
          """
          WITH args AS (SELECT ?::text AS operation_id, ?::text AS owner, ?::text AS action),
          div AS (
            UPDATE app_generation_operations o
            SET %s,
                revision = o.revision + 1,
                lease_owner = NULL,
                lease_until = NULL,
                review_reason = CASE WHEN o.phase = 'submitting' THEN 'dispatch_interrupted'
                                     ELSE 'missing_remote_job_id' END,
                review_opened_at = clock_timestamp(),
                review_resolution = NULL, review_resolved_by = NULL,
                review_resolved_at = NULL, review_note = NULL,
                dispatch_outcome = CASE WHEN o.phase = 'submitting' THEN 'unknown'
                                        ELSE o.dispatch_outcome END,
                updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND %s
              AND ((a.action = 'dispatch' AND o.phase = 'submitting')
                   OR (a.action = 'observe' AND o.next_action = 'observe'
                       AND btrim(coalesce(o.remote_job_id, '')) = ''))
            RETURNING o.operation_id, o.revision, o.review_reason
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT div.operation_id, div.revision, a.owner, '%s',
                   CASE WHEN a.action = 'dispatch' THEN 'submitting' ELSE 'observing' END,
                   '%s', true, jsonb_build_object('reason', div.review_reason)
            FROM div CROSS JOIN args a
          )
          SELECT o.*, div.revision AS diverted_revision, div.review_reason AS diverted_reason,
                 (o.next_action = a.action AND o.lease_until > clock_timestamp()) AS leased
          FROM app_generation_operations o
          JOIN args a ON o.operation_id = a.operation_id
          LEFT JOIN div ON true
          """
              .formatted(
                  Transitions.REVIEW_OPENED.set(),
                  FencedWrite.leaseFreeOr("(a.action = 'observe' AND o.lease_owner = a.owner)"),
                  Transitions.REVIEW_OPENED.name(),
                  Transitions.REVIEW_OPENED.onlyTarget().wire()));

  /** Why a claim acquired nothing: moved to review, or the row as it stands. */
  sealed interface Refusal {}

  record Diverted(String reviewReason, long revision) implements Refusal {}

  record Standing(OperationRow row, boolean leased) implements Refusal {}

  Optional<Refusal> explainOrDivert(String operationId, String owner, NextAction action) {
    return sql.queryOne(
        EXPLAIN_OR_DIVERT,
        p ->
            p.text(operationId) // operation_id
                .text(owner) // lease_owner
                .text(action.wire()), // next_action
        Claims::refusal);
  }

  private static Refusal refusal(ResultSet rs) throws SQLException {
    String diverted = rs.getString("diverted_reason");
    if (diverted != null) {
      return new Diverted(diverted, rs.getLong("diverted_revision"));
    }
    return new Standing(OperationRecords.row(rs), rs.getBoolean("leased"));
  }
}
