package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.function.LongSupplier;

/**
 * Each account's settings ({@code app_account_settings}, V24, V25): the most renders it may have in
 * flight across the fleet, and its fairness weight. Reached by {@link OperationsLedger#accounts};
 * the cap itself is enforced where an operation becomes {@code submitting} ({@link
 * OperationsLedger#markSubmittingWithinCap}); the weight is Temporal's to apply (the worker's
 * {@code FairnessWeights}), the ledger only holds it.
 */
public final class AccountSettings {

  /**
   * The phases of a render in flight: its POST sent, the render not ended. With {@code account <>
   * ''} it is the predicate of V24_1's index, which only a statement saying it all may use.
   */
  static final String IN_FLIGHT = "phase IN ('submitting', 'observing') AND account <> ''";

  /** The weights V25 accepts: 1000 to 1 is the widest ratio between two accounts. */
  public static final double MIN_WEIGHT = 0.001;

  public static final double MAX_WEIGHT = 1000;

  /** One account's settings and its renders in flight now. */
  public record Account(
      String account,
      OptionalInt maxInFlight,
      OptionalDouble weight,
      long inFlight,
      Optional<String> updatedBy,
      Optional<Instant> updatedAt) {}

  private final Sql sql;
  private final AccountRestrictions restrictions;

  AccountSettings(Sql sql, LongSupplier nanoTime) {
    this.sql = sql;
    this.restrictions = new AccountRestrictions(sql, nanoTime);
  }

  /** The caps and holds as every dispatch reads them (cached: {@link AccountRestrictions}). */
  public AccountRestrictions restrictions() {
    return restrictions;
  }

  static final SqlStatement LIST =
      SqlStatement.of(
          "list_account_settings",
          """
          SELECT s.account, s.max_in_flight, s.fairness_weight, s.updated_by, s.updated_at,
                 (SELECT count(*) FROM app_generation_operations o
                  WHERE o.account = s.account AND %s) AS in_flight
          FROM app_account_settings s
          ORDER BY s.account
          """
              .formatted(IN_FLIGHT));

  /** Every account with settings, by name. */
  public List<Account> list() {
    return sql.query(LIST, p -> {}, AccountSettings::account);
  }

  static final SqlStatement KNOWN =
      SqlStatement.of(
          "account_known",
          """
          SELECT EXISTS (SELECT 1 FROM app_account_settings WHERE account = ?)
              OR EXISTS (SELECT 1 FROM app_generation_operations WHERE account = ?) AS known
          """);

  /** Whether the ledger has seen the account: it has settings or an operation. */
  public boolean known(String account) {
    return sql.queryExactlyOne(KNOWN, p -> p.text(account).text(account), rs -> rs.getBoolean(1));
  }

  static final SqlStatement SET_CAP =
      SqlStatement.of(
          "set_account_cap",
          """
          INSERT INTO app_account_settings (account, max_in_flight, updated_by)
          VALUES (?, ?::integer, ?)
          ON CONFLICT (account) DO UPDATE SET
              max_in_flight = EXCLUDED.max_in_flight,
              updated_by = EXCLUDED.updated_by,
              updated_at = clock_timestamp()
          """);

  /**
   * Sets the account's cap on renders in flight, creating its settings if it has none.
   *
   * @param maxInFlight 0 or more (0 holds every dispatch of the account); empty: no cap
   * @throws IllegalArgumentException for a negative cap; nothing is then written
   */
  public void setCap(String account, OptionalInt maxInFlight, String by) {
    Identifiers.requireOwner(account);
    Identifiers.requireOwner(by);
    if (maxInFlight.isPresent() && maxInFlight.getAsInt() < 0) {
      throw new IllegalArgumentException(
          "--max-in-flight is 0 or more renders in flight, not " + maxInFlight.getAsInt());
    }
    Long cap = maxInFlight.isPresent() ? (long) maxInFlight.getAsInt() : null;
    sql.update(SET_CAP, p -> p.text(account).bigintOrNull(cap).text(by));
    restrictions.forget(); // this process sees its own change at once
  }

  static final SqlStatement SET_WEIGHT =
      SqlStatement.of(
          "set_account_weight",
          """
          INSERT INTO app_account_settings (account, fairness_weight, updated_by)
          VALUES (?, ?::double precision, ?)
          ON CONFLICT (account) DO UPDATE SET
              fairness_weight = EXCLUDED.fairness_weight,
              updated_by = EXCLUDED.updated_by,
              updated_at = clock_timestamp()
          """);

  /**
   * Sets the account's fairness weight, creating its settings if it has none.
   *
   * @param weight from {@link #MIN_WEIGHT} to {@link #MAX_WEIGHT}; empty: Temporal's default (1)
   * @throws IllegalArgumentException for a weight out of bounds; nothing is then written
   */
  public void setWeight(String account, OptionalDouble weight, String by) {
    Identifiers.requireOwner(account);
    Identifiers.requireOwner(by);
    if (weight.isPresent()) {
      requireWeight("--weight", weight.getAsDouble());
    }
    Double value = weight.isPresent() ? weight.getAsDouble() : null;
    sql.update(SET_WEIGHT, p -> p.text(account).doubleOrNull(value).text(by));
  }

  /**
   * @throws IllegalArgumentException unless {@code weight} is within V25's bounds
   */
  public static void requireWeight(String option, double weight) {
    if (!(weight >= MIN_WEIGHT && weight <= MAX_WEIGHT)) {
      throw new IllegalArgumentException(
          option + " is from " + MIN_WEIGHT + " to " + (long) MAX_WEIGHT + ", not " + weight);
    }
  }

  static final SqlStatement LOCK_CAP =
      SqlStatement.of(
          "lock_account_cap",
          "SELECT max_in_flight FROM app_account_settings WHERE account = ? FOR UPDATE");

  static final SqlStatement COUNT_IN_FLIGHT =
      SqlStatement.of(
          "count_in_flight",
          "SELECT count(*) FROM app_generation_operations WHERE account = ? AND " + IN_FLIGHT);

  /**
   * In {@code transaction}: locks the account's settings and counts its renders in flight. The
   * count is a statement of its own, after the lock: under READ COMMITTED it then sees every render
   * a worker that held the lock before committed.
   *
   * @return why the account is at its cap, or empty when one more may go
   */
  static Optional<String> atCap(Sql transaction, String account) {
    Optional<Integer> cap =
        transaction
            .queryOne(LOCK_CAP, p -> p.text(account), rs -> (Integer) rs.getObject(1))
            .flatMap(Optional::ofNullable);
    if (cap.isEmpty()) {
      return Optional.empty();
    }
    long inFlight =
        transaction.queryExactlyOne(COUNT_IN_FLIGHT, p -> p.text(account), rs -> rs.getLong(1));
    return inFlight < cap.get()
        ? Optional.empty()
        : Optional.of(
            "account "
                + account
                + " has "
                + inFlight
                + " render(s) in flight, its cap (ops accounts set "
                + account
                + " --max-in-flight)");
  }

  private static Account account(ResultSet rs) throws SQLException {
    Object cap = rs.getObject("max_in_flight");
    Object weight = rs.getObject("fairness_weight");
    return new Account(
        rs.getString("account"),
        cap == null ? OptionalInt.empty() : OptionalInt.of(((Number) cap).intValue()),
        weight == null
            ? OptionalDouble.empty()
            : OptionalDouble.of(((Number) weight).doubleValue()),
        rs.getLong("in_flight"),
        Optional.ofNullable(rs.getString("updated_by")),
        Sql.instant(rs, "updated_at"));
  }
}
