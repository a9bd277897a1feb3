package com.genace.ledger;

/** The ledger's SQL, in one place. Every statement is a single round trip. */
final class LedgerStatements {

  private LedgerStatements() {}

  static final String CREATE =
      """
      WITH ins AS (
        INSERT INTO app_generation_operations
            (operation_id, phase, next_action, model, request, account)
        VALUES (?, 'pending', 'dispatch', ?, ?::jsonb, ?)
        ON CONFLICT (operation_id) DO NOTHING
        RETURNING operation_id
      ),
      log AS (
        INSERT INTO app_generation_transitions
            (operation_id, revision, event, from_phase, to_phase, accepted)
        SELECT operation_id, 0, 'created', NULL, 'pending', true FROM ins
      )
      SELECT count(*) AS created FROM ins
      """;

  /**
   * The seed's claim: eligible by action (and, for dispatch, by a phase that proves no POST is in
   * flight; for observe, by a non-blank remote job id), only a null or expired lease by wall time,
   * and a new revision.
   */
  static final String CLAIM =
      """
      WITH args AS (
        SELECT ?::text AS operation_id, ?::text AS owner, ?::text AS action, ?::interval AS lease_length
      ),
      upd AS (
        UPDATE app_generation_operations o
        SET lease_owner = a.owner,
            lease_until = clock_timestamp() + a.lease_length,
            revision = o.revision + 1,
            updated_at = clock_timestamp()
        FROM args a
        WHERE o.operation_id = a.operation_id
          AND o.next_action = a.action
          AND (a.action <> 'dispatch' OR o.phase = 'pending')
          AND (a.action <> 'observe'
               OR (o.remote_job_id IS NOT NULL AND btrim(o.remote_job_id) <> ''))
          AND (o.lease_until IS NULL OR o.lease_until <= clock_timestamp())
        RETURNING o.operation_id, o.remote_job_id, o.revision, o.lease_until, o.phase
      ),
      log AS (
        INSERT INTO app_generation_transitions
            (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
        SELECT upd.operation_id, upd.revision, a.owner, 'claimed', upd.phase, upd.phase, true,
               jsonb_build_object('action', a.action)
        FROM upd CROSS JOIN args a
      )
      SELECT operation_id, remote_job_id, revision, lease_until FROM upd
      """;

  /**
   * Runs when a claim did not acquire: an operation that a POST may have left from, or an
   * observation without a remote job id, goes to review under a new revision instead of ever
   * becoming dispatchable or observable again.
   */
  static final String DIVERT_TO_REVIEW =
      """
      WITH args AS (SELECT ?::text AS operation_id, ?::text AS owner, ?::text AS action),
      upd AS (
        UPDATE app_generation_operations o
        SET phase = 'in_review',
            next_action = 'reconcile',
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
          AND (o.lease_until IS NULL OR o.lease_until <= clock_timestamp())
          AND ((a.action = 'dispatch' AND o.phase = 'submitting')
               OR (a.action = 'observe' AND o.next_action = 'observe'
                   AND (o.remote_job_id IS NULL OR btrim(o.remote_job_id) = '')))
        RETURNING o.operation_id, o.revision, o.review_reason
      ),
      log AS (
        INSERT INTO app_generation_transitions
            (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
        SELECT upd.operation_id, upd.revision, a.owner, 'review_opened',
               CASE WHEN a.action = 'dispatch' THEN 'submitting' ELSE 'observing' END,
               'in_review', true, jsonb_build_object('reason', upd.review_reason)
        FROM upd CROSS JOIN args a
      )
      SELECT revision, review_reason FROM upd
      """;

  static final String FIND = "SELECT * FROM app_generation_operations WHERE operation_id = ?";

  static final String LIST =
      """
      SELECT * FROM app_generation_operations
      WHERE (?::text IS NULL OR phase = ?::text)
      ORDER BY created_at DESC, operation_id
      LIMIT ?
      """;

  static final String COUNT_BY_PHASE =
      "SELECT phase, count(*) AS n FROM app_generation_operations GROUP BY phase";

  static final String HISTORY =
      "SELECT * FROM app_generation_transitions WHERE operation_id = ? ORDER BY id";

  private static final String RELEASE_LEASE = "lease_owner = NULL, lease_until = NULL";

  static final FencedWrite MARK_SUBMITTING =
      FencedWrite.transition(
          "submitting",
          "",
          """
          phase = 'submitting', submitting_since = clock_timestamp(),
          dispatch_attempts = o.dispatch_attempts + 1,
          dispatch_outcome = NULL, dispatch_detail = NULL""",
          "o.phase = 'pending'");

  static final FencedWrite RECORD_ACCEPTED =
      FencedWrite.transition(
          "accepted",
          ", ?::text AS remote_job_id",
          """
          phase = 'observing', next_action = 'observe', remote_job_id = a.remote_job_id,
          dispatch_outcome = 'accepted', dispatch_detail = NULL, """
              + RELEASE_LEASE,
          "o.phase = 'submitting'");

  static final FencedWrite RECORD_NOT_SENT =
      FencedWrite.transition(
          "not_sent",
          ", ?::text AS outcome, ?::text AS detail",
          "phase = 'pending', dispatch_outcome = a.outcome, dispatch_detail = a.detail, "
              + RELEASE_LEASE,
          "o.phase = 'submitting'");

  static final FencedWrite RECORD_REFUSED =
      FencedWrite.transition(
          "refused",
          ", ?::text AS detail",
          """
          phase = 'failed', next_action = 'none', dispatch_outcome = 'refused',
          dispatch_detail = a.detail, failure_reason = a.detail, """
              + RELEASE_LEASE,
          "o.phase = 'submitting'");

  static final FencedWrite OPEN_REVIEW =
      FencedWrite.transition(
          "review_opened",
          ", ?::text AS reason, ?::text AS detail",
          """
          phase = 'in_review', next_action = 'reconcile',
          review_reason = a.reason, review_opened_at = clock_timestamp(),
          review_resolution = NULL, review_resolved_by = NULL,
          review_resolved_at = NULL, review_note = NULL,
          dispatch_outcome = CASE WHEN o.phase = 'submitting' THEN 'unknown'
                                  ELSE o.dispatch_outcome END,
          dispatch_detail = CASE WHEN o.phase = 'submitting' THEN a.detail
                                 ELSE o.dispatch_detail END, """
              + RELEASE_LEASE,
          "o.phase IN ('pending', 'submitting', 'observing')");

  static final FencedWrite RESOLVE_REVIEW =
      FencedWrite.transition(
          "review_resolved",
          ", ?::text AS decision, ?::text AS remote_job_id, ?::text AS resolved_by, ?::text AS note",
          """
          phase = CASE a.decision WHEN 'found_remote_job' THEN 'observing'
                                  WHEN 'not_submitted' THEN 'pending' ELSE 'abandoned' END,
          next_action = CASE a.decision WHEN 'found_remote_job' THEN 'observe'
                                        WHEN 'not_submitted' THEN 'dispatch' ELSE 'none' END,
          remote_job_id = CASE WHEN a.decision = 'found_remote_job' THEN a.remote_job_id
                               ELSE o.remote_job_id END,
          remote_status = NULL, remote_status_rank = NULL, remote_snapshot = NULL,
          review_resolution = a.decision, review_resolved_by = a.resolved_by,
          review_resolved_at = clock_timestamp(), review_note = a.note,
          failure_reason = CASE WHEN a.decision = 'abandon' THEN a.note ELSE o.failure_reason END, """
              + RELEASE_LEASE,
          "o.phase = 'in_review'");

  /**
   * A snapshot replaces the stored one only when it ranks higher (queued &lt; running &lt;
   * terminal), so a late pending snapshot never replaces a terminal one; the same status again is a
   * quiet no-op. A terminal snapshot also moves the operation on and ends the observe lease.
   */
  static final FencedWrite RECORD_SNAPSHOT =
      new FencedWrite(
          "snapshot",
          ", ?::text AS status, ?::smallint AS status_rank, ?::jsonb AS snapshot, ?::text AS failure",
          """
          remote_status = a.status, remote_status_rank = a.status_rank,
          remote_snapshot = a.snapshot, remote_observed_at = clock_timestamp(),
          phase = CASE a.status WHEN 'succeeded' THEN 'delivering'
                                WHEN 'failed' THEN 'failed' WHEN 'canceled' THEN 'failed'
                                ELSE o.phase END,
          next_action = CASE a.status WHEN 'succeeded' THEN 'deliver'
                                      WHEN 'failed' THEN 'none' WHEN 'canceled' THEN 'none'
                                      ELSE o.next_action END,
          failure_reason = CASE WHEN a.status IN ('failed', 'canceled') THEN a.failure
                                ELSE o.failure_reason END,
          lease_owner = CASE WHEN a.status_rank = 2 THEN NULL ELSE o.lease_owner END,
          lease_until = CASE WHEN a.status_rank = 2 THEN NULL ELSE o.lease_until END""",
          "o.phase = 'observing' AND coalesce(o.remote_status_rank, -1) < a.status_rank",
          "old.remote_status IS NOT DISTINCT FROM a.status",
          true);

  static final FencedWrite RECORD_DELIVERED =
      FencedWrite.transition(
          "delivered",
          ", ?::jsonb AS manifest",
          "phase = 'delivered', next_action = 'none', delivery_manifest = a.manifest, "
              + RELEASE_LEASE,
          "o.phase = 'delivering'");

  static final FencedWrite RELEASE = FencedWrite.transition("released", "", RELEASE_LEASE, "true");

  /** Renewals are not transitions: only denied ones are kept, as diagnostics. */
  static final FencedWrite RENEW =
      new FencedWrite(
          "renewed",
          "",
          "lease_until = clock_timestamp() + a.lease_length",
          "true",
          "false",
          false);
}
