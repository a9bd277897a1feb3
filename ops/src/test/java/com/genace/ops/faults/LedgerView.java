package com.genace.ops.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The ledger as the drill reads it, over its own direct connection: the operations table and the
 * append-only transitions, never the worker's code.
 */
final class LedgerView {

  static final List<String> TERMINAL = List.of("delivered", "failed", "abandoned");

  /** One operation's row, as far as the drill needs it. */
  record Operation(
      String id,
      String phase,
      Optional<String> leaseOwner,
      Optional<Instant> reviewOpenedAt,
      Optional<String> manifest) {

    boolean terminal() {
      return TERMINAL.contains(phase);
    }
  }

  private final PostgresServer server;

  LedgerView(PostgresServer server) {
    this.server = server;
  }

  /** The operations, by id. */
  Map<String, Operation> operations() throws SQLException {
    Map<String, Operation> operations = new HashMap<>();
    query(
        "SELECT operation_id, phase, lease_owner, review_opened_at,"
            + " delivery_manifest::text AS manifest"
            + " FROM app_generation_operations",
        rows ->
            operations.put(
                rows.getString("operation_id"),
                new Operation(
                    rows.getString("operation_id"),
                    rows.getString("phase"),
                    Optional.ofNullable(rows.getString("lease_owner")),
                    Optional.ofNullable(rows.getTimestamp("review_opened_at"))
                        .map(java.sql.Timestamp::toInstant),
                    Optional.ofNullable(rows.getString("manifest")))));
    return operations;
  }

  /** Exclusive writes the fence refused: the transitions recorded with {@code accepted = false}. */
  long deniedWrites() throws SQLException {
    long[] count = {0};
    query(
        "SELECT count(*) AS n FROM app_generation_transitions WHERE NOT accepted",
        rows -> count[0] = rows.getLong("n"));
    return count[0];
  }

  /**
   * Accepted transitions written under a lease older than one already used: for each operation, in
   * the order they were recorded, an accepted row whose revision is below the highest revision of
   * an earlier accepted row. Each is described in words.
   */
  List<String> staleWritesApplied() throws SQLException {
    List<String> stale = new ArrayList<>();
    Map<String, long[]> highest = new HashMap<>();
    query(
        "SELECT operation_id, revision, owner, event FROM app_generation_transitions"
            + " WHERE accepted ORDER BY operation_id, id",
        rows -> {
          String operation = rows.getString("operation_id");
          long revision = rows.getLong("revision");
          long[] max = highest.computeIfAbsent(operation, k -> new long[] {Long.MIN_VALUE});
          if (revision < max[0]) {
            stale.add(
                operation
                    + ": "
                    + rows.getString("event")
                    + " by "
                    + rows.getString("owner")
                    + " under revision "
                    + revision
                    + " after revision "
                    + max[0]);
          }
          max[0] = Math.max(max[0], revision);
        });
    return stale;
  }

  /** POSTs Genace answered 429 (nothing created), per operation: the worker recorded them. */
  Map<String, Long> rateLimitedAnswers() throws SQLException {
    return countPerOperation("details->>'outcome' = 'rate_limited'");
  }

  /** Reviews opened: accepted transitions into {@code in_review}. */
  long reviewsOpened() throws SQLException {
    long[] count = {0};
    query(
        "SELECT count(*) AS n FROM app_generation_transitions WHERE accepted AND to_phase = 'in_review'",
        rows -> count[0] = rows.getLong("n"));
    return count[0];
  }

  /** The id of the latest transition: a mark to look for what happened after it. */
  long lastTransitionId() throws SQLException {
    long[] id = {0};
    query(
        "SELECT coalesce(max(id), 0) AS id FROM app_generation_transitions",
        rows -> id[0] = rows.getLong("id"));
    return id[0];
  }

  /** Operations with an accepted transition after the mark. */
  Set<String> writtenSince(long mark) throws SQLException {
    Set<String> written = new HashSet<>();
    query(
        "SELECT DISTINCT operation_id FROM app_generation_transitions WHERE accepted AND id > ?",
        rows -> written.add(rows.getString("operation_id")),
        mark);
    return written;
  }

  /**
   * Reviews an operator resolved as "not submitted" (each permits one more POST), per operation.
   */
  Map<String, Long> notSubmittedResolutions() throws SQLException {
    return countPerOperation("details->>'decision' = 'not_submitted'");
  }

  private Map<String, Long> countPerOperation(String condition) throws SQLException {
    Map<String, Long> counts = new HashMap<>();
    query(
        "SELECT operation_id, count(*) AS n FROM app_generation_transitions WHERE accepted AND "
            + condition
            + " GROUP BY operation_id",
        rows -> counts.put(rows.getString("operation_id"), rows.getLong("n")));
    return counts;
  }

  private interface RowHandler {
    void handle(ResultSet rows) throws SQLException;
  }

  private void query(String sql, RowHandler handler, Object... parameters) throws SQLException {
    try (Connection connection = server.connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          handler.handle(rows);
        }
      }
    }
  }
}
