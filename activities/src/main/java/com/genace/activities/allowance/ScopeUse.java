package com.genace.activities.allowance;

import com.genace.activities.allowance.SpendingAllowance.Reservation;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One row of {@link DispatchAllowance#RESERVE}, one per limited scope: what the scope has used, its
 * limits, and whether the reservation was granted (the same on every row). {@link #reservation}
 * turns the rows into the answer, naming the limit a refused reservation met.
 */
record ScopeUse(
    String scope,
    boolean granted,
    long credits,
    long inFlight,
    long creditLimit,
    long inFlightCap) {

  /** The fleet's scope. */
  static final String FLEET = "*";

  /** An account's scope. */
  static String accountScope(String account) {
    return "account:" + account;
  }

  static ScopeUse read(ResultSet rs) throws SQLException {
    return new ScopeUse(
        rs.getString("scope"),
        rs.getBoolean("granted"),
        rs.getLong("credits"),
        rs.getLong("in_flight"),
        rs.getLong("credit_limit"),
        rs.getLong("in_flight_cap"));
  }

  /**
   * The reservation the rows grant or refuse. A refusal names the first limit met: the fleet's
   * dispatches in flight, the account's, then the fleet's credits, then the account's.
   */
  static Reservation reservation(List<ScopeUse> rows, String account, long credits) {
    boolean granted = !rows.isEmpty() && rows.get(rows.size() - 1).granted();
    if (granted) {
      return new Reservation(true, "reserved " + credits + " credit(s)");
    }
    Map<String, ScopeUse> uses = new HashMap<>();
    rows.forEach(row -> uses.put(row.scope(), row));
    Optional<ScopeUse> fleet = Optional.ofNullable(uses.get(FLEET));
    Optional<ScopeUse> own = Optional.ofNullable(uses.get(accountScope(account)));
    if (fleet.isPresent() && fleet.get().inFlight() >= fleet.get().inFlightCap()) {
      return new Reservation(
          false, "allowance: " + fleet.get().inFlightCap() + " dispatch(es) in flight fleet-wide");
    }
    if (own.isPresent() && own.get().inFlight() >= own.get().inFlightCap()) {
      return new Reservation(
          false,
          "allowance: " + own.get().inFlightCap() + " dispatch(es) in flight for " + account);
    }
    if (fleet.isPresent() && fleet.get().credits() + credits > fleet.get().creditLimit()) {
      return new Reservation(
          false,
          "allowance: "
              + fleet.get().credits()
              + " of "
              + fleet.get().creditLimit()
              + " credits used in the window");
    }
    ScopeUse use = own.orElseThrow();
    return new Reservation(
        false,
        "allowance: "
            + use.credits()
            + " of "
            + use.creditLimit()
            + " credits used by "
            + account
            + " in the window");
  }
}
