package com.genace.allowance;

import com.genace.ledger.LedgerException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Reserves a dispatch's credits in PostgreSQL before its POST, and settles the reservation with the
 * outcome. Reservations from every worker are serialized by one transaction-scoped advisory lock,
 * held for two short statements and never across a network call:
 *
 * <ol>
 *   <li>take the lock;
 *   <li>in one statement, sum the credits reserved or spent in the window and count the dispatches
 *       in flight (globally and for the account), and insert the reservation only if it fits.
 * </ol>
 *
 * A reservation counts as in flight only while its operation can still be sending ({@code pending}
 * or {@code submitting}), so a worker that crashed before settling does not hold the cap.
 */
public final class DispatchAllowance implements SpendingAllowance {

  /** Current use, for the status document. */
  public record Usage(long creditsInWindow, long inFlight, AllowancePolicy policy) {}

  private static final long LOCK_KEY = 0x67656e61L; // "gena": one lock for all reservations

  private static final String RESERVE =
      """
      WITH args AS (
        SELECT ?::text AS operation_id, ?::text AS account, ?::bigint AS credits,
               ?::interval AS window_length, ?::bigint AS global_credits,
               ?::bigint AS account_credits, ?::int AS global_in_flight, ?::int AS account_in_flight
      ),
      used AS (
        SELECT
          coalesce(sum(r.credits) FILTER (WHERE r.state <> 'released'
              AND r.reserved_at > clock_timestamp() - a.window_length), 0) AS global_credits,
          coalesce(sum(r.credits) FILTER (WHERE r.state <> 'released' AND r.account = a.account
              AND r.reserved_at > clock_timestamp() - a.window_length), 0) AS account_credits,
          count(*) FILTER (WHERE r.state = 'in_flight'
              AND o.phase IN ('pending', 'submitting')) AS global_in_flight,
          count(*) FILTER (WHERE r.state = 'in_flight' AND r.account = a.account
              AND o.phase IN ('pending', 'submitting')) AS account_in_flight
        FROM args a
        LEFT JOIN app_dispatch_reservations r ON true
        LEFT JOIN app_generation_operations o ON o.operation_id = r.operation_id
        GROUP BY a.window_length
      ),
      ins AS (
        INSERT INTO app_dispatch_reservations (operation_id, account, credits, state)
        SELECT a.operation_id, a.account, a.credits, 'in_flight'
        FROM args a, used u
        WHERE u.global_credits + a.credits <= a.global_credits
          AND u.account_credits + a.credits <= a.account_credits
          AND u.global_in_flight < a.global_in_flight
          AND u.account_in_flight < a.account_in_flight
        RETURNING id
      )
      SELECT (SELECT count(*) FROM ins) AS granted, u.*, a.global_credits AS global_limit,
             a.account_credits AS account_limit, a.global_in_flight AS global_cap,
             a.account_in_flight AS account_cap
      FROM used u, args a
      """;

  /** A reservation left in flight by an earlier attempt of the same operation is void now. */
  private static final String RELEASE_STALE =
      """
      UPDATE app_dispatch_reservations SET state = 'released', settled_at = clock_timestamp()
      WHERE operation_id = ? AND state = 'in_flight'
      """;

  private static final String SETTLE =
      """
      UPDATE app_dispatch_reservations SET state = ?, settled_at = clock_timestamp()
      WHERE operation_id = ? AND state = 'in_flight'
      """;

  private static final String USAGE =
      """
      SELECT
        coalesce(sum(r.credits) FILTER (WHERE r.state <> 'released'
            AND r.reserved_at > clock_timestamp() - ?::interval), 0) AS credits,
        count(*) FILTER (WHERE r.state = 'in_flight'
            AND o.phase IN ('pending', 'submitting')) AS in_flight
      FROM app_dispatch_reservations r
      JOIN app_generation_operations o ON o.operation_id = r.operation_id
      """;

  private final DataSource dataSource;
  private final AllowancePolicy policy;

  public DispatchAllowance(DataSource dataSource, AllowancePolicy policy) {
    this.dataSource = dataSource;
    this.policy = policy;
  }

  public AllowancePolicy policy() {
    return policy;
  }

  @Override
  public Reservation reserve(String operationId, String account, String model) {
    long credits = policy.costOf(model);
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)");
          PreparedStatement stale = connection.prepareStatement(RELEASE_STALE);
          PreparedStatement reserve = connection.prepareStatement(RESERVE)) {
        lock.setLong(1, LOCK_KEY);
        lock.execute();
        stale.setString(1, operationId);
        stale.executeUpdate();
        reserve.setString(1, operationId);
        reserve.setString(2, account);
        reserve.setLong(3, credits);
        reserve.setString(4, policy.window().toMillis() + " milliseconds");
        reserve.setLong(5, policy.globalCredits());
        reserve.setLong(6, policy.accountCredits());
        reserve.setInt(7, policy.globalMaxInFlight());
        reserve.setInt(8, policy.accountMaxInFlight());
        Reservation reservation;
        try (ResultSet rs = reserve.executeQuery()) {
          rs.next();
          reservation = describe(rs, account, credits);
        }
        connection.commit();
        return reservation;
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new LedgerException("could not reserve the dispatch allowance: " + e.getMessage(), e);
    }
  }

  private static Reservation describe(ResultSet rs, String account, long credits)
      throws SQLException {
    if (rs.getLong("granted") == 1) {
      return new Reservation(true, "reserved " + credits + " credit(s)");
    }
    if (rs.getLong("global_in_flight") >= rs.getLong("global_cap")) {
      return new Reservation(
          false, "allowance: " + rs.getLong("global_cap") + " dispatch(es) in flight fleet-wide");
    }
    if (rs.getLong("account_in_flight") >= rs.getLong("account_cap")) {
      return new Reservation(
          false,
          "allowance: " + rs.getLong("account_cap") + " dispatch(es) in flight for " + account);
    }
    if (rs.getLong("global_credits") + credits > rs.getLong("global_limit")) {
      return new Reservation(
          false,
          "allowance: "
              + rs.getLong("global_credits")
              + " of "
              + rs.getLong("global_limit")
              + " credits used in the window");
    }
    return new Reservation(
        false,
        "allowance: "
            + rs.getLong("account_credits")
            + " of "
            + rs.getLong("account_limit")
            + " credits used by "
            + account
            + " in the window");
  }

  @Override
  public void settle(String operationId, boolean spent) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(SETTLE)) {
      statement.setString(1, spent ? "spent" : "released");
      statement.setString(2, operationId);
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new LedgerException("could not settle the dispatch allowance: " + e.getMessage(), e);
    }
  }

  public Usage usage() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(USAGE)) {
      statement.setString(1, policy.window().toMillis() + " milliseconds");
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return new Usage(rs.getLong("credits"), rs.getLong("in_flight"), policy);
      }
    } catch (SQLException e) {
      throw new LedgerException("could not read the dispatch allowance: " + e.getMessage(), e);
    }
  }

  /** How long to wait before asking again after a refusal. */
  public static Duration retryAfter() {
    return Duration.ofSeconds(15);
  }
}
