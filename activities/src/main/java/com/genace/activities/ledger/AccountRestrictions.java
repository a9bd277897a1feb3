package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What may hold an account's dispatch back, as every worker reads it: its cap on renders in flight
 * ({@code app_account_settings}, V24) and a hold after Genace rate limited its traffic ({@code
 * app_account_holds}, V26). Read in one statement at most every {@link #RECHECK} and kept, so that
 * a dispatch of an account with neither pays nothing for them. A hold this worker writes holds its
 * own next dispatches at once; another worker's within {@link #RECHECK}, or at its own next 429.
 */
public final class AccountRestrictions {

  /** How long a read is reused before it is read again. */
  public static final Duration RECHECK = Duration.ofSeconds(5);

  /** The longest a 429 holds an account, whatever its {@code Retry-After} says. */
  public static final Duration MAX_HOLD = Duration.ofMinutes(5);

  /**
   * An account held until {@code untilNanos} (this process's {@link System#nanoTime} scale) after
   * the 429 of {@code operationId}.
   */
  private record Hold(String reason, String operationId, long untilNanos) {}

  /** One read: the capped accounts and the holds in force then. */
  private record Read(Set<String> capped, Map<String, Hold> holds, long readAt) {}

  /** What a dispatch sees now: one read, at one moment. */
  public static final class View {
    private final Read read;
    private final long now;

    private View(Read read, long now) {
      this.read = read;
      this.now = now;
    }

    /** Whether no account is capped and none held: a dispatch need not know its account first. */
    public boolean none() {
      return read.capped().isEmpty()
          && read.holds().values().stream().noneMatch(hold -> hold.untilNanos() > now);
    }

    public boolean capped(String account) {
      return read.capped().contains(account);
    }

    /**
     * Why {@code operationId}, of {@code account}, waits now, and for how long; empty when it need
     * not. The operation whose 429 holds the account is not held by it: its workflow waits the
     * {@code Retry-After} itself (in its own time, which Temporal may skip in tests).
     */
    public Optional<Held> held(String account, String operationId) {
      Hold hold = read.holds().get(account);
      if (hold == null || hold.untilNanos() <= now || hold.operationId().equals(operationId)) {
        return Optional.empty();
      }
      return Optional.of(new Held(hold.reason(), Duration.ofNanos(hold.untilNanos() - now)));
    }
  }

  /** An account's hold as a dispatch reports it. */
  public record Held(String reason, Duration remaining) {
    public String describe(String account) {
      return "account "
          + account
          + " is held for "
          + Math.max(1, (remaining.toMillis() + 999) / 1000)
          + " s more: "
          + reason;
    }
  }

  /** A hold in force, as {@code /status} lists it. */
  public record HeldAccount(
      String account, String reason, String heldBy, Instant heldSince, Instant heldUntil) {}

  private final Sql sql;
  private final LongSupplier nanoTime;
  private volatile Read last;

  AccountRestrictions(Sql sql, LongSupplier nanoTime) {
    this.sql = sql;
    this.nanoTime = nanoTime;
  }

  static final SqlStatement READ =
      SqlStatement.of(
          "account_restrictions",
          """
          SELECT account, NULL::bigint AS held_ms, NULL::text AS reason, NULL::text AS operation_id
          FROM app_account_settings WHERE max_in_flight IS NOT NULL
          UNION ALL
          SELECT account, ceil(extract(epoch FROM held_until - clock_timestamp()) * 1000)::bigint,
                 reason, operation_id
          FROM app_account_holds WHERE held_until > clock_timestamp()
          """);

  /** The restrictions, read at most every {@link #RECHECK}. */
  public View current() {
    long now = nanoTime.getAsLong();
    Read read = last;
    if (read == null || now - read.readAt() > RECHECK.toNanos()) {
      read = read(now);
      last = read;
    }
    return new View(read, now);
  }

  /** A row of {@link #READ}: a capped account (no {@code heldMs}) or a held one. */
  private record Row(String account, Long heldMs, String reason, String operationId) {}

  private Read read(long now) {
    Set<String> capped = new HashSet<>();
    Map<String, Hold> holds = new HashMap<>();
    for (Row row :
        sql.query(
            READ,
            p -> {},
            rs ->
                new Row(
                    rs.getString(1), (Long) rs.getObject(2), rs.getString(3), rs.getString(4)))) {
      if (row.heldMs() == null) {
        capped.add(row.account());
      } else {
        holds.put(
            row.account(),
            new Hold(
                row.reason(), row.operationId(), now + Duration.ofMillis(row.heldMs()).toNanos()));
      }
    }
    return new Read(Set.copyOf(capped), Map.copyOf(holds), now);
  }

  /** Forgets the last read: a change made here is seen by this process's next dispatch. */
  void forget() {
    last = null;
  }

  static final SqlStatement HOLD =
      SqlStatement.of(
          "hold_account",
          """
          INSERT INTO app_account_holds (account, reason, operation_id, held_by, held_until)
          VALUES (?, ?, ?, ?, clock_timestamp() + ?::interval)
          ON CONFLICT (account) DO UPDATE SET
              reason = EXCLUDED.reason,
              operation_id = EXCLUDED.operation_id,
              held_by = EXCLUDED.held_by,
              held_since = CASE WHEN app_account_holds.held_until > clock_timestamp()
                                THEN app_account_holds.held_since ELSE clock_timestamp() END,
              held_until = GREATEST(app_account_holds.held_until, EXCLUDED.held_until)
          """);

  /**
   * Holds the account's dispatch on every worker for {@code howLong} (at most {@link #MAX_HOLD})
   * after {@code operationId}'s 429; a hold in force that lasts longer keeps its end, and takes the
   * latest 429's reason and operation. This process's next dispatch sees it at once.
   */
  public void hold(String account, String operationId, Duration howLong, String reason, String by) {
    Identifiers.requireOwner(account);
    Identifiers.requireOwner(by);
    Duration bounded = howLong.compareTo(MAX_HOLD) > 0 ? MAX_HOLD : howLong;
    if (bounded.isNegative() || bounded.isZero()) {
      return;
    }
    sql.update(
        HOLD, p -> p.text(account).text(reason).text(operationId).text(by).interval(bounded));
    Read read = last;
    long now = nanoTime.getAsLong();
    if (read != null) {
      Map<String, Hold> holds = new HashMap<>(read.holds());
      holds.merge(
          account,
          new Hold(reason, operationId, now + bounded.toNanos()),
          (old, latest) ->
              new Hold(
                  latest.reason(),
                  latest.operationId(),
                  Math.max(old.untilNanos(), latest.untilNanos())));
      last = new Read(read.capped(), Map.copyOf(holds), read.readAt());
    }
  }

  static final SqlStatement HELD =
      SqlStatement.of(
          "held_accounts",
          """
          SELECT account, reason, held_by, held_since, held_until FROM app_account_holds
          WHERE held_until > clock_timestamp() ORDER BY account
          """);

  /** The holds in force now, read from the ledger (every worker's). */
  public List<HeldAccount> heldNow() {
    return sql.query(HELD, p -> {}, AccountRestrictions::heldAccount);
  }

  private static HeldAccount heldAccount(ResultSet rs) throws SQLException {
    return new HeldAccount(
        rs.getString("account"),
        rs.getString("reason"),
        rs.getString("held_by"),
        Sql.instant(rs, "held_since").orElseThrow(),
        Sql.instant(rs, "held_until").orElseThrow());
  }
}
