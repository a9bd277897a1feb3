package com.genace.ledger;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;
import com.genace.model.RemoteStatus;

/**
 * What observation and delivery write about the remote job; shaped as in {@link DispatchWrites}.
 */
final class RemoteJobWrites {

  private final Sql sql;

  RemoteJobWrites(Sql sql) {
    this.sql = sql;
  }

  /**
   * Mirrors a remote snapshot under an observe lease. A snapshot replaces the stored one only when
   * it ranks higher (queued 0 &lt; running 1 &lt; terminal 2), so a late queued or running snapshot
   * never replaces a terminal one. A terminal snapshot moves the operation on (succeeded →
   * delivering; failed or canceled → failed) and ends the lease. (A poll records its snapshot
   * without a lease: {@link ObservationWrites#RECORD_OBSERVED_SNAPSHOT}.)
   *
   * <p>History: a newer snapshot is a transition; the same status again is a quiet no-op; an older
   * or conflicting one leaves a {@code not_permitted} diagnostic row.
   */
  static final SqlStatement RECORD_SNAPSHOT =
      SqlStatement.of(
          "record_snapshot",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::jsonb AS details, ?::text AS status, ?::smallint AS status_rank,
                   ?::jsonb AS snapshot, ?::text AS failure
          ),
          cur AS (
            SELECT o.phase, o.remote_status,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = 'observe' AND o.lease_until > clock_timestamp()) AS fenced,
                   (o.phase = 'observing'
                    AND coalesce(o.remote_status_rank, -1) < a.status_rank) AS newer
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET remote_status = a.status,
                remote_status_rank = a.status_rank,
                remote_snapshot = a.snapshot,
                remote_observed_at = clock_timestamp(),
                phase = CASE WHEN a.status = 'succeeded' THEN 'delivering'
                             WHEN a.status IN ('failed', 'canceled') THEN 'failed'
                             ELSE o.phase END,
                next_action = CASE WHEN a.status = 'succeeded' THEN 'deliver'
                                   WHEN a.status IN ('failed', 'canceled') THEN 'none'
                                   ELSE o.next_action END,
                failure_reason = CASE WHEN a.status IN ('failed', 'canceled') THEN a.failure
                                      ELSE o.failure_reason END,
                lease_owner = CASE WHEN a.status_rank = 2 THEN NULL ELSE o.lease_owner END,
                lease_until = CASE WHEN a.status_rank = 2 THEN NULL ELSE o.lease_until END,
                updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = 'observe' AND o.lease_until > clock_timestamp()
              AND o.phase = 'observing' AND coalesce(o.remote_status_rank, -1) < a.status_rank
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'snapshot', cur.phase, upd.phase,
                   upd.phase IS NOT NULL AND cur.newer,
                   CASE WHEN upd.phase IS NOT NULL AND cur.newer THEN a.details
                        WHEN cur.fenced THEN a.details || '{"denied": "not_permitted"}'
                        ELSE a.details || '{"denied": "lease"}' END
            FROM args a CROSS JOIN cur LEFT JOIN upd ON true
            WHERE NOT (cur.fenced AND NOT cur.newer
                       AND cur.remote_status IS NOT DISTINCT FROM a.status)
          )
          SELECT (SELECT count(*) FROM cur) AS found,
                 coalesce((SELECT fenced FROM cur), false) AS fenced,
                 (SELECT count(*) FROM upd CROSS JOIN cur WHERE cur.newer) AS applied,
                 NULL::timestamptz AS lease_until
          """);

  FenceOutcome recordSnapshot(
      Lease lease, String details, RemoteStatus status, String snapshotJson, String failureReason) {
    return sql.queryExactlyOne(
        RECORD_SNAPSHOT,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .json(details) // transitions.details
                .text(status.wire()) // remote_status
                .integer(status.rank()) // remote_status_rank
                .json(snapshotJson) // remote_snapshot
                .text(failureReason), // failure_reason (failed, canceled)
        FenceOutcome::read);
  }

  /** delivering → delivered: every artifact is in the store, the manifest says where. */
  static final SqlStatement RECORD_DELIVERED =
      SqlStatement.of(
          "record_delivered",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::jsonb AS details, ?::jsonb AS manifest
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = 'deliver' AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET phase = 'delivered', next_action = 'none', delivery_manifest = a.manifest,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = 'deliver' AND o.lease_until > clock_timestamp()
              AND o.phase = 'delivering'
            RETURNING o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'delivered', cur.phase, upd.phase,
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

  FenceOutcome recordDelivered(Lease lease, String details, String manifestJson) {
    return sql.queryExactlyOne(
        RECORD_DELIVERED,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .json(details) // transitions.details
                .json(manifestJson), // delivery_manifest
        FenceOutcome::read);
  }
}
