package com.genace.activities.allowance;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Reserves a dispatch's credits in PostgreSQL before its POST, and settles the reservation with the
 * outcome. Limits apply per scope: the fleet ({@code *}) and each account ({@code account:NAME}). A
 * reservation is one short transaction, never held across a network call.
 *
 * <p>Each scope's counter is split into {@value #SLICES} slices ({@code app_allowance_slices}), so
 * that reservations do not queue on one row. Each slice holds a budget (credits, and dispatches in
 * flight) out of the scope's limits; the budgets add up to the limits. A reservation:
 *
 * <ol>
 *   <li>locks the first slice, from its operation's home slice (its id's hash) on, that no other
 *       reservation holds in any scope that has a limit ({@code SKIP LOCKED}; it waits for its home
 *       slice only when all are held; nothing at all when nothing is limited), and in one statement
 *       (a fresh snapshot, so every reservation committed by an earlier holder of the lock is seen)
 *       voids this operation's earlier reservation, counts the slice's dispatches in flight and
 *       admits the reservation if it fits the slice's budget: granted, done;
 *   <li>otherwise, in a second transaction, locks every slice of those scopes (in order: scope,
 *       then slice, so no two reservations deadlock), decides on their sums exactly as one counter
 *       would, and shares out again what the limits leave, so that the next reservations find
 *       budget in their own slices. A scope's window starts here too, for all its slices at once.
 * </ol>
 *
 * <p>Why the promise holds: a slice admits on its own only within its budget, and the budgets add
 * up to the limit, so the slices' sum never exceeds it; the budgets are only ever shared out with
 * every slice locked. Credits are kept per window, so a reservation costs the same at any history.
 * A scope's window starts with its first reservation after the previous window ended. A reservation
 * counts as in flight only while its operation can still be sending ({@code pending} or {@code
 * submitting}), so a worker that crashed before settling does not hold the cap; the in-flight index
 * holds only unsettled reservations.
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

  /**
   * How many slices a scope's counter is created with (V20 copied the old counters into as many).
   * Sums and shares go over the slices a scope has, so a later change of this number keeps them
   * right.
   */
  public static final int SLICES = 16;

  /** The operation's home slice: where its reservations look first for a free slice. */
  static int homeSlice(String operationId) {
    return Math.floorMod(operationId.hashCode(), SLICES);
  }

  @Override
  public Reservation reserve(String operationId, String account, String model) {
    if (unlimited()) {
      return new Reservation(true, "unlimited");
    }
    long credits = policy.costOf(model);
    Attempt attempt =
        new Attempt(
            operationId,
            account,
            credits,
            fleetLimited ? ScopeUse.FLEET : null,
            accountLimited ? ScopeUse.accountScope(account) : null,
            homeSlice(operationId));
    List<ScopeUse> own = attempt.run(false);
    if (!own.isEmpty() && own.get(0).granted()) {
      return ScopeUse.reservation(own, account, credits);
    }
    return ScopeUse.reservation(attempt.run(true), account, credits);
  }

  /** One reservation's arguments, tried on its home slice, then on every slice. */
  private final class Attempt {
    private final String operationId;
    private final String account;
    private final long credits;
    private final String fleetScope;
    private final String accountScope;
    private final int home;
    private final int scopes;

    Attempt(
        String operationId,
        String account,
        long credits,
        String fleetScope,
        String accountScope,
        int home) {
      this.operationId = operationId;
      this.account = account;
      this.credits = credits;
      this.fleetScope = fleetScope;
      this.accountScope = accountScope;
      this.home = home;
      this.scopes = (fleetScope != null ? 1 : 0) + (accountScope != null ? 1 : 0);
    }

    /**
     * One transaction on the home slices ({@code whole} false: the rows say granted, or nothing was
     * decided) or on every slice ({@code whole} true: the rows are the decision). Slices a scope
     * does not have yet are created first, in a statement of their own, outside the locks.
     */
    List<ScopeUse> run(boolean whole) {
      long expected = (long) scopes * (whole ? SLICES : 1);
      List<ScopeUse> rows = sql.inTransaction(RESERVE, tx -> decide(tx, whole, expected));
      if (rows != null) {
        return rows;
      }
      sql.update(
          CREATE_SLICES,
          p ->
              p.text(fleetScope) // slices.scope, fleet
                  .text(accountScope) // slices.scope, account
                  .integer(SLICES)); // slices.slice: 0 to SLICES - 1
      rows = sql.inTransaction(RESERVE, tx -> decide(tx, whole, expected));
      if (rows == null) {
        throw new IllegalStateException("the allowance's slices were not created");
      }
      return rows;
    }

    /** Null when fewer slices than expected were there to lock. */
    private List<ScopeUse> decide(Sql tx, boolean whole, long expected) {
      int slice = home;
      Optional<Integer> free = whole ? Optional.empty() : lockFreeSlice(tx);
      if (free.isPresent()) {
        slice = free.get();
      } else {
        long locked =
            tx.queryExactlyOne(
                whole ? LOCK_ALL_SLICES : LOCK_HOME_SLICE,
                p -> {
                  p.text(fleetScope).text(accountScope); // slices.scope
                  if (!whole) {
                    p.integer(home); // slices.slice
                  }
                },
                rs -> rs.getLong(1));
        if (locked < expected) {
          return null;
        }
      }
      int counted = slice;
      return tx.query(
          RESERVE,
          p ->
              p.text(operationId) // reservations.operation_id
                  .text(account) // reservations.account
                  .bigint(credits) // reservations.credits
                  .text(fleetScope) // slices.scope, fleet
                  .text(accountScope) // slices.scope, account
                  .integer(counted) // slices.slice
                  .bool(whole) // every slice locked
                  .interval(policy.window()) // slices.window_start + window
                  .bigint(policy.globalCredits())
                  .bigint(policy.accountCredits())
                  .bigint(policy.globalMaxInFlight())
                  .bigint(policy.accountMaxInFlight()),
          ScopeUse::read);
    }

    /**
     * The first slice, from the home slice on, whose rows in every limited scope no other
     * reservation holds; locked without waiting. Empty when all are held, or none exist yet.
     */
    private Optional<Integer> lockFreeSlice(Sql tx) {
      if (fleetScope != null && accountScope != null) {
        return tx.queryOne(
            LOCK_FREE_SLICE_PAIR,
            p ->
                p.text(accountScope) // slices.scope, account
                    .text(fleetScope) // slices.scope, fleet
                    .integer(home), // slices.slice, first
            rs -> rs.getInt(1));
      }
      return tx.queryOne(
          LOCK_FREE_SLICE,
          p ->
              p.text(fleetScope != null ? fleetScope : accountScope) // slices.scope
                  .integer(home), // slices.slice, first
          rs -> rs.getInt(1));
    }
  }

  /**
   * A free slice of one scope, from the home slice on: {@code SKIP LOCKED}, so a reservation never
   * waits here for another.
   */
  static final SqlStatement LOCK_FREE_SLICE =
      SqlStatement.of(
          "lock_free_slice",
          """
          SELECT slice FROM app_allowance_slices
          WHERE scope = ?
          ORDER BY slice < ?::int, slice
          LIMIT 1
          FOR UPDATE SKIP LOCKED
          """);

  /** The same slice of the fleet and of the account, both free, from the home slice on. */
  static final SqlStatement LOCK_FREE_SLICE_PAIR =
      SqlStatement.of(
          "lock_free_slice_pair",
          """
          SELECT f.slice
          FROM app_allowance_slices f
          JOIN app_allowance_slices a ON a.scope = ? AND a.slice = f.slice
          WHERE f.scope = ?
          ORDER BY f.slice < ?::int, f.slice
          LIMIT 1
          FOR UPDATE OF f, a SKIP LOCKED
          """);

  /**
   * Locks the limited scopes' home slices, fleet first, waiting for them (all slices were held by
   * others): returns how many exist.
   */
  static final SqlStatement LOCK_HOME_SLICE =
      SqlStatement.of(
          "lock_home_slice",
          """
          SELECT count(*) FROM (
            SELECT 1 FROM app_allowance_slices WHERE scope IN (?, ?) AND slice = ?
            ORDER BY scope FOR UPDATE
          ) locked
          """);

  /**
   * Locks every slice of the limited scopes, in the home slices' order (scope, then slice): returns
   * how many exist.
   */
  static final SqlStatement LOCK_ALL_SLICES =
      SqlStatement.of(
          "lock_all_slices",
          """
          SELECT count(*) FROM (
            SELECT 1 FROM app_allowance_slices WHERE scope IN (?, ?)
            ORDER BY scope, slice FOR UPDATE
          ) locked
          """);

  /**
   * A scope's first reservation creates its slices, with no window (the first reservation starts
   * one for all of them) and no budget (it shares the limits out).
   */
  static final SqlStatement CREATE_SLICES =
      SqlStatement.of(
          "create_slices",
          """
          INSERT INTO app_allowance_slices (scope, slice, window_start)
          SELECT v.scope, g.slice, '-infinity'
          FROM (VALUES (?), (?)) AS v(scope) CROSS JOIN generate_series(0, ?::int - 1) AS g(slice)
          WHERE v.scope IS NOT NULL ORDER BY 1, 2
          ON CONFLICT (scope, slice) DO NOTHING
          """);

  /**
   * Runs with the home slices locked ({@code whole} false) or every slice ({@code whole} true). One
   * row per limited scope: what it has used in the locked slices (this operation's earlier
   * reservation, now void, excluded) and whether the reservation was granted. On the home slice
   * alone a refusal decides nothing: the caller asks again with every slice.
   *
   * <ul>
   *   <li>home slice: admits within the slice's budgets, if its window is current and its budgets
   *       were shared out of these limits; writes only the slice (and only when it admits or gives
   *       back a voided reservation's credits);
   *   <li>every slice: admits if the scope's sums fit its limits, starts a new window if the last
   *       one ended, and shares out what is left: each slice's budget is what it holds plus an
   *       equal part of the rest (the home slice first for the remainder). Budgets are zero when a
   *       scope is already over a limit (a lowered one), so that no slice admits on its own.
   * </ul>
   */
  static final SqlStatement RESERVE =
      SqlStatement.of(
          "reserve",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS account, ?::bigint AS credits,
                   ?::text AS fleet_scope, ?::text AS account_scope,
                   ?::int AS home, ?::boolean AS whole,
                   ?::interval AS window_length,
                   ?::bigint AS fleet_credits, ?::bigint AS account_credits,
                   ?::bigint AS fleet_in_flight, ?::bigint AS account_in_flight,
                   clock_timestamp() AS now
          ),
          stale AS (
            UPDATE app_dispatch_reservations r
            SET state = 'released', settled_at = a.now
            FROM args a
            WHERE r.operation_id = a.operation_id AND r.state = 'in_flight'
              AND (a.whole OR coalesce(r.slice, 0) = a.home)
            RETURNING coalesce(r.slice, 0) AS slice, r.credits, r.reserved_at
          ),
          elsewhere AS (
            SELECT count(*) > 0 AS found
            FROM app_dispatch_reservations r CROSS JOIN args a
            WHERE NOT a.whole AND r.operation_id = a.operation_id AND r.state = 'in_flight'
              AND coalesce(r.slice, 0) <> a.home
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
                AND (a.whole OR coalesce(r2.slice, 0) = a.home)
              FOR UPDATE OF r2 SKIP LOCKED)
          ),
          flying AS (
            SELECT coalesce(r.slice, 0) AS slice, r.account = a.account AS own, count(*) AS n
            FROM app_dispatch_reservations r
            JOIN app_generation_operations o ON o.operation_id = r.operation_id
            CROSS JOIN args a
            WHERE r.state = 'in_flight' AND r.operation_id <> a.operation_id
              AND o.phase IN ('pending', 'submitting')
              AND (a.fleet_scope IS NOT NULL OR r.account = a.account)
              AND (a.whole OR coalesce(r.slice, 0) = a.home)
            GROUP BY 1, 2
          ),
          locked AS (
            SELECT s.scope, s.slice, s.credits, s.credit_budget, s.in_flight_budget,
                   s.credit_limit, s.in_flight_limit,
                   s.window_start > a.now - a.window_length AS current_window,
                   CASE WHEN s.scope = a.fleet_scope THEN a.fleet_credits
                        ELSE a.account_credits END AS credit_cap,
                   CASE WHEN s.scope = a.fleet_scope THEN a.fleet_in_flight
                        ELSE a.account_in_flight END AS in_flight_cap,
                   coalesce((SELECT sum(st.credits) FROM stale st
                             WHERE st.slice = s.slice AND st.reserved_at >= s.window_start),
                            0)::bigint AS refund,
                   coalesce((SELECT sum(f.n) FROM flying f
                             WHERE f.slice = s.slice AND (s.scope = a.fleet_scope OR f.own)),
                            0)::bigint AS in_flight
            FROM app_allowance_slices s CROSS JOIN args a
            WHERE s.scope IN (a.fleet_scope, a.account_scope) AND (a.whole OR s.slice = a.home)
          ),
          scopes AS (
            SELECT l.scope,
                   bool_or(l.current_window) AS current_window,
                   sum(CASE WHEN l.current_window THEN greatest(0, l.credits - l.refund)
                            ELSE 0 END)::bigint AS credits,
                   sum(l.in_flight)::bigint AS in_flight,
                   min(l.credit_cap) AS credit_limit,
                   min(l.in_flight_cap) AS in_flight_cap,
                   count(*) AS slices,
                   bool_and(coalesce(l.current_window
                                     AND l.credit_limit = l.credit_cap
                                     AND l.in_flight_limit = l.in_flight_cap
                                     AND greatest(0, l.credits - l.refund) + a.credits
                                         <= l.credit_budget
                                     AND l.in_flight < l.in_flight_budget, false)) AS fits_budget
            FROM locked l CROSS JOIN args a
            GROUP BY l.scope
          ),
          verdict AS (
            SELECT CASE WHEN a.whole
                        THEN coalesce((SELECT bool_and(s.credits + a.credits <= s.credit_limit
                                                       AND s.in_flight < s.in_flight_cap)
                                       FROM scopes s), false)
                        ELSE coalesce((SELECT bool_and(s.fits_budget) FROM scopes s), false)
                             AND NOT (SELECT e.found FROM elsewhere e)
                   END AS granted
            FROM args a
          ),
          ins AS (
            INSERT INTO app_dispatch_reservations (operation_id, account, credits, state, slice)
            SELECT a.operation_id, a.account, a.credits, 'in_flight', a.home
            FROM args a CROSS JOIN verdict v WHERE v.granted
          ),
          after AS (
            SELECT l.scope, l.slice, l.current_window, l.credit_cap, l.in_flight_cap,
                   CASE WHEN l.current_window THEN greatest(0, l.credits - l.refund) ELSE 0 END
                     + CASE WHEN v.granted AND l.slice = a.home THEN a.credits ELSE 0 END
                     AS credits,
                   l.in_flight + CASE WHEN v.granted AND l.slice = a.home THEN 1 ELSE 0 END
                     AS in_flight,
                   s.credit_limit - s.credits - CASE WHEN v.granted THEN a.credits ELSE 0 END
                     AS free_credits,
                   s.in_flight_cap - s.in_flight - CASE WHEN v.granted THEN 1 ELSE 0 END
                     AS free_in_flight,
                   s.slices,
                   row_number() OVER (PARTITION BY l.scope
                                      ORDER BY l.slice >= a.home DESC, l.slice) - 1 AS rank,
                   s.current_window AS scope_current,
                   v.granted OR (l.refund > 0 AND l.current_window) AS changed
            FROM locked l JOIN scopes s ON s.scope = l.scope
            CROSS JOIN verdict v CROSS JOIN args a
          ),
          counted AS (
            UPDATE app_allowance_slices t
            SET window_start = CASE WHEN a.whole AND NOT n.scope_current THEN a.now
                                    ELSE t.window_start END,
                credits = n.credits,
                credit_budget =
                  CASE WHEN NOT a.whole THEN t.credit_budget
                       WHEN n.free_credits < 0 THEN 0
                       ELSE n.credits + n.free_credits / n.slices
                            + CASE WHEN n.rank < n.free_credits % n.slices THEN 1 ELSE 0 END
                  END,
                in_flight_budget =
                  CASE WHEN NOT a.whole THEN t.in_flight_budget
                       WHEN n.free_in_flight < 0 THEN 0
                       ELSE n.in_flight + n.free_in_flight / n.slices
                            + CASE WHEN n.rank < n.free_in_flight % n.slices THEN 1 ELSE 0 END
                  END,
                credit_limit = CASE WHEN a.whole THEN n.credit_cap ELSE t.credit_limit END,
                in_flight_limit = CASE WHEN a.whole THEN n.in_flight_cap
                                       ELSE t.in_flight_limit END
            FROM after n CROSS JOIN args a
            WHERE t.scope = n.scope AND t.slice = n.slice AND (a.whole OR n.changed)
          )
          SELECT v.granted, s.scope, s.credits, s.in_flight, s.credit_limit, s.in_flight_cap
          FROM scopes s CROSS JOIN verdict v
          ORDER BY s.scope
          """);

  /**
   * Settles the operation's open reservation. Released credits go back to the slice they were
   * counted in, if the window they were reserved in is still the current one.
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
            RETURNING r.account, r.credits, r.reserved_at, coalesce(r.slice, 0) AS slice
          ),
          refund AS (
            UPDATE app_allowance_slices c
            SET credits = greatest(0, c.credits - s.credits)
            FROM settled s CROSS JOIN args a
            WHERE NOT a.spent
              AND c.scope IN ('*', 'account:' || s.account) AND c.slice = s.slice
              AND c.window_start <= s.reserved_at
              AND c.window_start > clock_timestamp() - a.window_length
          )
          SELECT count(*) FROM settled
          """);

  /**
   * Before a release gives credits back: locks the slices the reservation was counted in, in the
   * reservations' order (scope, then slice), so that a settle never holds one of them while it
   * waits for the other, as a reservation holding them in that order would wait for it.
   */
  static final SqlStatement LOCK_SETTLED_SLICES =
      SqlStatement.of(
          "lock_settled_slices",
          """
          SELECT count(*) FROM (
            SELECT 1
            FROM app_dispatch_reservations r
            JOIN app_allowance_slices c
              ON c.scope IN ('*', 'account:' || r.account) AND c.slice = coalesce(r.slice, 0)
            WHERE r.operation_id = ? AND r.state = 'in_flight'
            ORDER BY c.scope, c.slice FOR UPDATE OF c
          ) locked
          """);

  @Override
  public void settle(String operationId, boolean spent) {
    if (unlimited()) {
      return;
    }
    if (spent) {
      // Spent credits stay counted: no slice is written.
      settle(sql, operationId, true);
      return;
    }
    sql.inTransaction(
        SETTLE,
        tx -> {
          tx.queryExactlyOne(
              LOCK_SETTLED_SLICES,
              p -> p.text(operationId), // reservations.operation_id
              rs -> rs.getLong(1));
          return settle(tx, operationId, false);
        });
  }

  private long settle(Sql runner, String operationId, boolean spent) {
    return runner.queryExactlyOne(
        SETTLE,
        p ->
            p.text(operationId) // reservations.operation_id
                .bool(spent) // reservations.state: spent or released
                .interval(policy.window()), // slices.window_start + window
        rs -> rs.getLong(1));
  }

  /**
   * Credits used in the current window (the fleet's slices, or the sum of the accounts' when only
   * accounts have limits) and the dispatches in flight, by the in-flight index.
   */
  static final SqlStatement USAGE =
      SqlStatement.of(
          "usage",
          """
          WITH args AS (SELECT ?::interval AS window_length, ?::boolean AS fleet_limited)
          SELECT
            (SELECT coalesce(sum(c.credits), 0) FROM app_allowance_slices c
             WHERE c.window_start > clock_timestamp() - a.window_length
               AND (c.scope = '*') = a.fleet_limited) AS credits,
            (SELECT count(*) FROM app_dispatch_reservations r
             JOIN app_generation_operations o ON o.operation_id = r.operation_id
             WHERE r.state = 'in_flight' AND o.phase IN ('pending', 'submitting')) AS in_flight
          FROM args a
          """);

  /**
   * The accounts that used most in their current window, most first: {@value #SLICES} slices per
   * account, so the table is as small as the number of accounts, never the history.
   */
  static final SqlStatement ACCOUNTS_USAGE =
      SqlStatement.of(
          "accounts_usage",
          """
          SELECT substr(c.scope, length('account:') + 1) AS account, sum(c.credits) AS credits
          FROM app_allowance_slices c
          WHERE c.scope LIKE 'account:%' AND c.window_start > clock_timestamp() - ?::interval
          GROUP BY c.scope
          ORDER BY 2 DESC, c.scope LIMIT ?
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
