package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Renewing and releasing a lease. Neither changes the operation's state, so neither leaves a
 * history row when accepted. Both are the common case of every long action, so each is one plain
 * {@code UPDATE} by primary key, as cheap as a claim; only when it changes nothing does a second
 * statement say why (missing operation, lost fence) and leave the diagnostic row of a denied write.
 * The fence is the UPDATE's own condition, so the second statement decides nothing.
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
          UPDATE app_generation_operations o
          SET lease_until = clock_timestamp() + ?::interval
          WHERE o.operation_id = ? AND %s
          RETURNING lease_until
          """
              .formatted(FencedWrite.fence("?", "?", "?")));

  FenceOutcome renew(Lease lease, Duration leaseLength) {
    Optional<Instant> renewed =
        sql.queryOne(
            RENEW,
            p ->
                FencedWrite.bindLease(
                    p.interval(leaseLength), // lease_until - clock_timestamp()
                    lease,
                    true),
            rs -> Sql.instant(rs, "lease_until").orElseThrow());
    return renewed.isPresent()
        ? new FenceOutcome(true, true, 1, renewed)
        : denied(lease, "renewed");
  }

  /** Gives the action up so that another worker may claim it at once. */
  static final SqlStatement RELEASE =
      SqlStatement.of(
          "release",
          """
          UPDATE app_generation_operations o
          SET lease_owner = NULL, lease_until = NULL
          WHERE o.operation_id = ? AND %s
          """
              .formatted(FencedWrite.fence("?", "?", "?")));

  FenceOutcome release(Lease lease) {
    int released = sql.update(RELEASE, p -> FencedWrite.bindLease(p, lease, true));
    return released == 1
        ? new FenceOutcome(true, true, 1, Optional.empty())
        : denied(lease, "released");
  }

  /**
   * Why a renewal or release changed nothing, recorded as a denied write ({@code event}) when the
   * operation exists. Reports {@code fenced} as the row stands now; the write was denied either
   * way.
   */
  static final SqlStatement LEASE_DENIED =
      SqlStatement.of(
          "lease_denied",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,
                   ?::text AS action, ?::text AS event
          ),
          cur AS (
            SELECT o.phase, (%s) AS fenced
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT a.operation_id, a.revision, a.owner, a.event, cur.phase, NULL, false,
                   jsonb_build_object('action', a.action, 'denied', 'lease')
            FROM args a CROSS JOIN cur
          )
          SELECT (SELECT count(*) FROM cur) AS found,
                 coalesce((SELECT fenced FROM cur), false) AS fenced,
                 0::bigint AS applied,
                 NULL::timestamptz AS lease_until
          """
              .formatted(FencedWrite.fence("a.owner", "a.revision", "a.action")));

  private FenceOutcome denied(Lease lease, String event) {
    return sql.queryExactlyOne(
        LEASE_DENIED,
        p -> FencedWrite.bindLease(p, lease, true).text(event), // transitions.event
        FenceOutcome::read);
  }
}
