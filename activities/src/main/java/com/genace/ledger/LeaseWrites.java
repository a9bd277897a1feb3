package com.genace.ledger;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;
import java.time.Duration;

/**
 * Renewing and releasing a lease. Neither changes the operation's state, so neither leaves a
 * history row when accepted; a denied one leaves a diagnostic row.
 */
final class LeaseWrites {

  private final Sql sql;

  LeaseWrites(Sql sql) {
    this.sql = sql;
  }

  /** Extends the lease, bound to the owner and revision it was claimed under. */
  static final SqlStatement RENEW =
      SqlStatement.of(
          "renew",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::text AS action, ?::interval AS lease_length
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = a.action AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET lease_until = clock_timestamp() + a.lease_length
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = a.action AND o.lease_until > clock_timestamp()
            RETURNING o.lease_until
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'renewed', cur.phase, NULL, false,
                   jsonb_build_object('action', a.action, 'denied', 'lease')
            FROM args a CROSS JOIN cur
            WHERE NOT EXISTS (SELECT 1 FROM upd)
          )
          SELECT (SELECT count(*) FROM cur) AS found,
                 coalesce((SELECT fenced FROM cur), false) AS fenced,
                 (SELECT count(*) FROM upd) AS applied,
                 (SELECT lease_until FROM upd) AS lease_until
          """);

  FenceOutcome renew(Lease lease, Duration leaseLength) {
    return sql.queryExactlyOne(
        RENEW,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .text(lease.action().wire()) // next_action
                .interval(leaseLength), // lease_until - clock_timestamp()
        FenceOutcome::read);
  }

  /** Gives the action up so that another worker may claim it at once. */
  static final SqlStatement RELEASE =
      SqlStatement.of(
          "release",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::text AS action
          ),
          cur AS (
            SELECT o.phase,
                   (o.lease_owner = a.owner AND o.revision = a.revision
                    AND o.next_action = a.action AND o.lease_until > clock_timestamp()) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET lease_owner = NULL, lease_until = NULL
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND o.lease_owner = a.owner AND o.revision = a.revision
              AND o.next_action = a.action AND o.lease_until > clock_timestamp()
            RETURNING o.operation_id
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, 'released', cur.phase, NULL, false,
                   jsonb_build_object('action', a.action, 'denied', 'lease')
            FROM args a CROSS JOIN cur
            WHERE NOT EXISTS (SELECT 1 FROM upd)
          )
          SELECT (SELECT count(*) FROM cur) AS found,
                 coalesce((SELECT fenced FROM cur), false) AS fenced,
                 (SELECT count(*) FROM upd) AS applied,
                 NULL::timestamptz AS lease_until
          """);

  FenceOutcome release(Lease lease) {
    return sql.queryExactlyOne(
        RELEASE,
        p ->
            p.text(lease.operationId()) // operation_id
                .text(lease.owner()) // lease_owner
                .bigint(lease.revision()) // revision
                .text(lease.action().wire()), // next_action
        FenceOutcome::read);
  }
}
