package com.genace.allowance;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * Reserves a dispatch's credits in PostgreSQL before its POST, and settles the reservation with the
 * outcome. Limits apply per scope: the fleet ({@code *}) and each account ({@code account:NAME}). A
 * reservation is one short transaction, never held across a network call:
 *
 * <ol>
 *   <li>lock the counter rows of the scopes that have a limit, and only those: with no fleet-wide
 *       limit, accounts never wait for each other; with no limit at all, nothing runs;
 *   <li>in one statement (a fresh snapshot, so every reservation committed by an earlier holder of
 *       the lock is seen): void this operation's earlier reservation, count the dispatches in
 *       flight, compare the counters with the limits, insert the reservation and add its credits if
 *       it fits.
 * </ol>
 *
 * <p>Credits are kept in a counter per scope and window, so a reservation costs the same at any
 * history. A scope's window starts with its first reservation after the previous window ended. A
 * reservation counts as in flight only while its operation can still be sending ({@code pending} or
 * {@code submitting}), so a worker that crashed before settling does not hold the cap; the
 * in-flight index holds only unsettled reservations.
 */
public final class DispatchAllowance implements SpendingAllowance {

  /**
   * Current use, for the status document and the metrics. {@code accountsInWindow}: when accounts
   * have a limit, the credits of the {@value #ACCOUNTS_SHOWN} accounts that used most in their
   * current window (all share one limit, so they are the nearest to it), most first; else empty.
   */
  public record Usage(
      long creditsInWindow,
      long inFlight,
      AllowancePolicy policy,
      java.util.Map<String, Long> accountsInWindow) {

    public Usage(long creditsInWindow, long inFlight, AllowancePolicy policy) {
      this(creditsInWindow, inFlight, policy, java.util.Map.of());
    }

    public Usage {
      accountsInWindow =
          java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(accountsInWindow));
    }
  }

  /**
   * How many accounts' use is reported: a bounded label set for the metric, and the ones an alert
   * needs (the nearest to the shared per-account limit).
   */
  public static final int ACCOUNTS_SHOWN = 20;

  private final Sql sql;
  private final AllowancePolicy policy;
  private final boolean fleetLimited;
  private final boolean accountLimited;

  public DispatchAllowance(DataSource dataSource, AllowancePolicy policy) {
    this(Sql.of(dataSource), policy);
  }

  public DispatchAllowance(Sql sql, AllowancePolicy policy) {
    this.sql = sql.as("allowance", AllowanceException::of);
    this.policy = policy;
    this.fleetLimited =
        policy.globalCredits() < Long.MAX_VALUE || policy.globalMaxInFlight() < Integer.MAX_VALUE;
    this.accountLimited =
        policy.accountCredits() < Long.MAX_VALUE || policy.accountMaxInFlight() < Integer.MAX_VALUE;
  }

  public AllowancePolicy policy() {
    return policy;
  }

  private boolean unlimited() {
    return !fleetLimited && !accountLimited;
  }

  @Override
  public boolean limited() {
    return !unlimited();
  }

  @Override
  public Reservation reserve(String operationId, String account, String model) {
    if (unlimited()) {
      return new Reservation(true, "unlimited");
    }
    long credits = policy.costOf(model);
    String fleetScope = fleetLimited ? ScopeUse.FLEET : null;
    String accountScope = accountLimited ? ScopeUse.accountScope(account) : null;
    int scopes = (fleetLimited ? 1 : 0) + (accountLimited ? 1 : 0);
    return sql.inTransaction(
        RESERVE,
        tx -> {
          if (lock(tx, fleetScope, accountScope) < scopes) {
            tx.update(CREATE_SCOPES, p -> p.text(fleetScope).text(accountScope));
            lock(tx, fleetScope, accountScope);
          }
          List<ScopeUse> rows =
              tx.query(
                  RESERVE,
                  p ->
                      p.text(operationId) // reservations.operation_id
                          .text(account) // reservations.account
                          .bigint(credits) // reservations.credits
                          .text(fleetScope) // counters.scope, fleet
                          .text(accountScope) // counters.scope, account
                          .interval(policy.window()) // counters.window_start + window
                          .bigint(policy.globalCredits())
                          .bigint(policy.accountCredits())
                          .integer(policy.globalMaxInFlight())
                          .integer(policy.accountMaxInFlight()),
                  ScopeUse::read);
          return ScopeUse.reservation(rows, account, credits);
        });
  }

  /** Locks the limited scopes' counter rows, fleet first: returns how many exist. */
  static final SqlStatement LOCK_SCOPES =
      SqlStatement.of(
          "lock_scopes",
          """
          SELECT count(*) FROM (
            SELECT scope FROM app_allowance_counters WHERE scope IN (?, ?)
            ORDER BY scope FOR UPDATE
          ) locked
          """);

  private static long lock(Sql tx, String fleetScope, String accountScope) {
    return tx.queryExactlyOne(
        LOCK_SCOPES,
        p ->
            p.text(fleetScope) // scope
                .text(accountScope), // scope
        rs -> rs.getLong(1));
  }

  /** A scope's first reservation creates its counter row. */
  static final SqlStatement CREATE_SCOPES =
      SqlStatement.of(
          "create_scopes",
          """
          INSERT INTO app_allowance_counters (scope, window_start, credits)
          SELECT scope, clock_timestamp(), 0 FROM (VALUES (?), (?)) AS v(scope)
          WHERE scope IS NOT NULL ORDER BY scope
          ON CONFLICT (scope) DO NOTHING
          """);

  /**
   * Runs with the scopes' rows locked. One row per limited scope: what it has used (this
   * operation's earlier reservation, now void, excluded) and whether the reservation was granted.
   */
  static final SqlStatement RESERVE =
      SqlStatement.of(
          "reserve",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS account, ?::bigint AS credits,
                   ?::text AS fleet_scope, ?::text AS account_scope,
                   ?::interval AS window_length,
                   ?::bigint AS fleet_credits, ?::bigint AS account_credits,
                   ?::int AS fleet_in_flight, ?::int AS account_in_flight
          ),
          stale AS (
            UPDATE app_dispatch_reservations r
            SET state = 'released', settled_at = clock_timestamp()
            FROM args a
            WHERE r.operation_id = a.operation_id AND r.state = 'in_flight'
            RETURNING r.credits, r.reserved_at
          ),
          orphans AS (
            UPDATE app_dispatch_reservations r
            SET state = 'spent', settled_at = clock_timestamp()
            WHERE r.id IN (
              SELECT r2.id
              FROM app_dispatch_reservations r2
              JOIN app_generation_operations o ON o.operation_id = r2.operation_id
              CROSS JOIN args a
              WHERE r2.state = 'in_flight' AND r2.operation_id <> a.operation_id
                AND o.phase NOT IN ('pending', 'submitting')
                AND (a.fleet_scope IS NOT NULL OR r2.account = a.account)
              FOR UPDATE OF r2 SKIP LOCKED)
          ),
          used AS (
            SELECT c.scope,
                   c.window_start > clock_timestamp() - a.window_length AS current_window,
                   CASE WHEN c.window_start > clock_timestamp() - a.window_length
                        THEN greatest(0, c.credits - coalesce(
                               (SELECT sum(s.credits) FROM stale s
                                WHERE s.reserved_at >= c.window_start), 0))
                        ELSE 0 END AS credits,
                   (SELECT count(*)
                    FROM app_dispatch_reservations r
                    JOIN app_generation_operations o ON o.operation_id = r.operation_id
                    WHERE r.state = 'in_flight' AND r.operation_id <> a.operation_id
                      AND o.phase IN ('pending', 'submitting')
                      AND (c.scope = a.fleet_scope OR r.account = a.account)) AS in_flight,
                   CASE WHEN c.scope = a.fleet_scope THEN a.fleet_credits
                        ELSE a.account_credits END AS credit_limit,
                   CASE WHEN c.scope = a.fleet_scope THEN a.fleet_in_flight
                        ELSE a.account_in_flight END AS in_flight_cap
            FROM app_allowance_counters c CROSS JOIN args a
            WHERE c.scope IN (a.fleet_scope, a.account_scope)
          ),
          verdict AS (
            SELECT bool_and(u.credits + a.credits <= u.credit_limit
                            AND u.in_flight < u.in_flight_cap) AS granted
            FROM used u CROSS JOIN args a
          ),
          ins AS (
            INSERT INTO app_dispatch_reservations (operation_id, account, credits, state)
            SELECT a.operation_id, a.account, a.credits, 'in_flight'
            FROM args a CROSS JOIN verdict v WHERE v.granted
          ),
          counted AS (
            UPDATE app_allowance_counters c
            SET window_start = CASE WHEN u.current_window THEN c.window_start
                                    ELSE clock_timestamp() END,
                credits = u.credits + CASE WHEN v.granted THEN a.credits ELSE 0 END
            FROM used u CROSS JOIN verdict v CROSS JOIN args a
            WHERE c.scope = u.scope
          )
          SELECT v.granted, u.scope, u.credits, u.in_flight, u.credit_limit, u.in_flight_cap
          FROM used u CROSS JOIN verdict v
          """);

  /**
   * Settles the operation's open reservation. Released credits go back to their scopes if the
   * window they were reserved in is still the current one.
   */
  static final SqlStatement SETTLE =
      SqlStatement.of(
          "settle",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::boolean AS spent, ?::interval AS window_length
          ),
          settled AS (
            UPDATE app_dispatch_reservations r
            SET state = CASE WHEN a.spent THEN 'spent' ELSE 'released' END,
                settled_at = clock_timestamp()
            FROM args a
            WHERE r.operation_id = a.operation_id AND r.state = 'in_flight'
            RETURNING r.account, r.credits, r.reserved_at
          ),
          refund AS (
            UPDATE app_allowance_counters c
            SET credits = greatest(0, c.credits - s.credits)
            FROM settled s CROSS JOIN args a
            WHERE NOT a.spent
              AND c.scope IN ('*', 'account:' || s.account)
              AND c.window_start <= s.reserved_at
              AND c.window_start > clock_timestamp() - a.window_length
          )
          SELECT count(*) FROM settled
          """);

  @Override
  public void settle(String operationId, boolean spent) {
    if (unlimited()) {
      return;
    }
    sql.queryExactlyOne(
        SETTLE,
        p ->
            p.text(operationId) // reservations.operation_id
                .bool(spent) // reservations.state: spent or released
                .interval(policy.window()), // counters.window_start + window
        rs -> rs.getLong(1));
  }

  /**
   * Credits used in the current window (the fleet's counter, or the sum of the accounts' when only
   * accounts have limits) and the dispatches in flight, by the in-flight index.
   */
  static final SqlStatement USAGE =
      SqlStatement.of(
          "usage",
          """
          WITH args AS (SELECT ?::interval AS window_length, ?::boolean AS fleet_limited)
          SELECT
            (SELECT coalesce(sum(c.credits), 0) FROM app_allowance_counters c
             WHERE c.window_start > clock_timestamp() - a.window_length
               AND (c.scope = '*') = a.fleet_limited) AS credits,
            (SELECT count(*) FROM app_dispatch_reservations r
             JOIN app_generation_operations o ON o.operation_id = r.operation_id
             WHERE r.state = 'in_flight' AND o.phase IN ('pending', 'submitting')) AS in_flight
          FROM args a
          """);

  /**
   * The accounts that used most in their current window, most first: one counter row per account,
   * so the table is as small as the number of accounts, never the history.
   */
  static final SqlStatement ACCOUNTS_USAGE =
      SqlStatement.of(
          "accounts_usage",
          """
          SELECT substr(c.scope, length('account:') + 1) AS account, c.credits
          FROM app_allowance_counters c
          WHERE c.scope LIKE 'account:%' AND c.window_start > clock_timestamp() - ?::interval
          ORDER BY c.credits DESC, c.scope LIMIT ?
          """);

  /** Current use; an unlimited allowance keeps no books, so it reports none. */
  public Usage usage() {
    if (unlimited()) {
      return new Usage(0, 0, policy);
    }
    Usage fleet =
        sql.queryExactlyOne(
            USAGE,
            p ->
                p.interval(policy.window()) // counters.window_start + window
                    .bool(fleetLimited), // counters.scope = '*'
            rs -> new Usage(rs.getLong("credits"), rs.getLong("in_flight"), policy));
    if (policy.accountCredits() >= Long.MAX_VALUE) {
      return fleet;
    }
    java.util.Map<String, Long> accounts = new java.util.LinkedHashMap<>();
    sql.query(
            ACCOUNTS_USAGE,
            p ->
                p.interval(policy.window()) // counters.window_start + window
                    .integer(ACCOUNTS_SHOWN), // limit
            rs -> java.util.Map.entry(rs.getString("account"), rs.getLong("credits")))
        .forEach(e -> accounts.put(e.getKey(), e.getValue()));
    return new Usage(fleet.creditsInWindow(), fleet.inFlight(), policy, accounts);
  }

  /** How long to wait before asking again after a refusal. */
  public static Duration retryAfter() {
    return Duration.ofSeconds(15);
  }
}
