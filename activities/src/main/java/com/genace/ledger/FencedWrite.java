package com.genace.ledger;

import java.util.ArrayList;
import java.util.List;

/**
 * One kind of exclusive write, rendered as a single statement that:
 *
 * <ol>
 *   <li>locks the operation row and checks the fence: same owner, same revision, same action, and a
 *       lease that has not expired by {@code clock_timestamp()};
 *   <li>applies the transition only if the fence holds and the transition is permitted from the
 *       current state;
 *   <li>appends the transition to the history, or a diagnostic row when the write was denied;
 *   <li>returns whether the row exists, whether the fence held, and whether the write applied.
 * </ol>
 *
 * <p>Arguments are bound by position into the {@code args} row so that the SQL can refer to them by
 * name: the common ones first (see {@link #arguments}), then the extra ones in declaration order.
 */
record FencedWrite(
    String event,
    String extraArguments,
    String assignments,
    String permitted,
    String unchangedWhen,
    boolean logApplied) {

  private static final String TEMPLATE =
      """
      WITH args AS (
        SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision, ?::text AS action,
               ?::interval AS lease_length, ?::text AS event, ?::jsonb AS details %s
      ),
      old AS (
        SELECT o.operation_id, o.phase, o.remote_status,
               (o.lease_owner = a.owner AND o.revision = a.revision AND o.next_action = a.action
                AND o.lease_until > clock_timestamp()) AS fenced
        FROM app_generation_operations o CROSS JOIN args a
        WHERE o.operation_id = a.operation_id
        FOR UPDATE OF o
      ),
      upd AS (
        UPDATE app_generation_operations o
        SET %s, updated_at = clock_timestamp()
        FROM old CROSS JOIN args a
        WHERE o.operation_id = old.operation_id AND old.fenced AND (%s)
        RETURNING o.operation_id, o.phase, o.lease_until
      ),
      log AS (
        INSERT INTO app_generation_transitions
            (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
        SELECT old.operation_id, a.revision, a.owner, a.event, old.phase, upd.phase,
               upd.operation_id IS NOT NULL,
               CASE WHEN upd.operation_id IS NOT NULL THEN a.details
                    WHEN old.fenced THEN a.details || '{"denied": "not_permitted"}'::jsonb
                    ELSE a.details || '{"denied": "lease"}'::jsonb END
        FROM old CROSS JOIN args a LEFT JOIN upd ON true
        WHERE CASE WHEN upd.operation_id IS NOT NULL THEN %s
                   WHEN old.fenced THEN NOT (%s)
                   ELSE true END
      )
      SELECT (SELECT count(*) FROM old) AS found,
             coalesce((SELECT fenced FROM old), false) AS fenced,
             (SELECT count(*) FROM upd) AS applied,
             (SELECT lease_until FROM upd) AS lease_until
      """;

  /** A write whose every application is a transition worth keeping in the history. */
  static FencedWrite transition(
      String event, String extraArguments, String assignments, String permitted) {
    return new FencedWrite(event, extraArguments, assignments, permitted, "false", true);
  }

  String sql() {
    return TEMPLATE.formatted(
        extraArguments, assignments, permitted, Boolean.toString(logApplied), unchangedWhen);
  }

  /** The bound arguments: the lease, the lease length, this write's event and details, extras. */
  List<Object> arguments(Lease lease, String leaseLength, String detailsJson, List<?> extras) {
    List<Object> args = new ArrayList<>();
    args.add(lease.operationId());
    args.add(lease.owner());
    args.add(lease.revision());
    args.add(lease.action().wire());
    args.add(leaseLength);
    args.add(event);
    args.add(detailsJson);
    args.addAll(extras);
    return args;
  }
}
