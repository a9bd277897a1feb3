package com.genace.ops.faults.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The ledger as the drill reads it, over its own direct connection: the operations table and the
 * append-only transitions, never the worker's code.
 */
public final class LedgerView {

  public static final List<String> TERMINAL = List.of("delivered", "failed", "abandoned");

  /**
   * One operation's row, as far as the drill needs it.
   *
   * @param leaseLive whether a lease is held and unexpired by the database's clock
   */
  public record Operation(
      String id,
      String phase,
      String nextAction,
      long revision,
      Optional<String> leaseOwner,
      boolean leaseLive,
      Optional<Instant> reviewOpenedAt,
      Optional<String> manifest) {

    public boolean terminal() {
      return TERMINAL.contains(phase);
    }
  }

  private final PostgresServer server;

  /**
   * Per operation, the revisions its row was seen at: the id of the latest transition visible at
   * that moment, mapped to the revision then. Claims change the revision without a history row, so
   * only what was seen on the row tells that a newer lease existed before a write.
   */
  private final Map<String, TreeMap<Long, Long>> revisionsSeen = new HashMap<>();

  /**
   * Forgets what was seen on the rows: after a restore from a backup, the one step back a revision
   * may legitimately take, the rows and transition ids start again from the dump's.
   */
  public void forgetRevisionsSeen() {
    synchronized (revisionsSeen) {
      revisionsSeen.clear();
    }
  }

  public LedgerView(PostgresServer server) {
    this.server = server;
  }

  /** The operations, by id. */
  public Map<String, Operation> operations() throws SQLException {
    Map<String, Operation> operations = new HashMap<>();
    query(
        "SELECT operation_id, phase, next_action, revision, lease_owner,"
            + " coalesce(lease_until > clock_timestamp(), false) AS lease_live, review_opened_at,"
            + " delivery_manifest::text AS manifest"
            + " FROM app_generation_operations",
        rows ->
            operations.put(
                rows.getString("operation_id"),
                new Operation(
                    rows.getString("operation_id"),
                    rows.getString("phase"),
                    rows.getString("next_action"),
                    rows.getLong("revision"),
                    Optional.ofNullable(rows.getString("lease_owner")),
                    rows.getBoolean("lease_live"),
                    Optional.ofNullable(rows.getTimestamp("review_opened_at"))
                        .map(java.sql.Timestamp::toInstant),
                    Optional.ofNullable(rows.getString("manifest")))));
    return operations;
  }

  /** Exclusive writes the fence refused: the transitions recorded with {@code accepted = false}. */
  public long deniedWrites() throws SQLException {
    long[] count = {0};
    query(
        "SELECT count(*) AS n FROM app_generation_transitions WHERE NOT accepted",
        rows -> count[0] = rows.getLong("n"));
    return count[0];
  }

  /**
   * Notes every operation's revision as it stands, with the latest transition visible in the same
   * snapshot: a transition recorded after that one under a lower revision was written by a lease
   * that had already been replaced. One statement, so the two agree.
   */
  public void noteRevisions() throws SQLException {
    query(
        "SELECT operation_id, revision,"
            + " (SELECT coalesce(max(id), 0) FROM app_generation_transitions) AS mark"
            + " FROM app_generation_operations",
        rows -> {
          long revision = rows.getLong("revision");
          synchronized (revisionsSeen) {
            TreeMap<Long, Long> seen =
                revisionsSeen.computeIfAbsent(rows.getString("operation_id"), k -> new TreeMap<>());
            if (seen.isEmpty() || seen.lastEntry().getValue() < revision) {
              seen.put(rows.getLong("mark"), revision);
            }
          }
        });
  }

  /**
   * Accepted transitions written under a lease older than one already used: for each operation, in
   * the order they were recorded, an accepted row whose revision is below the highest revision of
   * an earlier accepted row, or below a revision {@link #noteRevisions} saw on the row before the
   * transition was recorded. Each is described in words.
   */
  public List<String> staleWritesApplied() throws SQLException {
    List<String> stale = new ArrayList<>();
    Map<String, long[]> highest = new HashMap<>();
    query(
        "SELECT id, operation_id, revision, owner, event FROM app_generation_transitions"
            + " WHERE accepted ORDER BY operation_id, id",
        rows -> {
          String operation = rows.getString("operation_id");
          long revision = rows.getLong("revision");
          long[] max = highest.computeIfAbsent(operation, k -> new long[] {Long.MIN_VALUE});
          long seenBefore = seenBefore(operation, rows.getLong("id"));
          if (revision < Math.max(max[0], seenBefore)) {
            stale.add(
                operation
                    + ": "
                    + rows.getString("event")
                    + " by "
                    + rows.getString("owner")
                    + " under revision "
                    + revision
                    + (revision < max[0]
                        ? " after revision " + max[0]
                        : " after the row was seen at revision " + seenBefore));
          }
          max[0] = Math.max(max[0], revision);
        });
    return stale;
  }

  /** The highest revision seen on the operation's row before transition {@code id} existed. */
  private long seenBefore(String operation, long id) {
    synchronized (revisionsSeen) {
      TreeMap<Long, Long> seen = revisionsSeen.get(operation);
      Map.Entry<Long, Long> before = seen == null ? null : seen.lowerEntry(id);
      return before == null ? Long.MIN_VALUE : before.getValue();
    }
  }

  /**
   * Whether a write by {@code owner} under {@code revision} was recorded as {@code event}: empty
   * while none was, otherwise whether the latest was accepted.
   */
  public Optional<Boolean> write(String operation, String owner, long revision, String event)
      throws SQLException {
    List<Boolean> accepted = new ArrayList<>();
    query(
        "SELECT accepted FROM app_generation_transitions"
            + " WHERE operation_id = ? AND owner = ? AND revision = ? AND event = ?"
            + " ORDER BY id DESC LIMIT 1",
        rows -> accepted.add(rows.getBoolean("accepted")),
        operation,
        owner,
        revision,
        event);
    return accepted.stream().findFirst();
  }

  /** POSTs Genace answered 429 (nothing created), per operation: the worker recorded them. */
  public Map<String, Long> rateLimitedAnswers() throws SQLException {
    return countPerOperation("details->>'outcome' = 'rate_limited'");
  }

  /** Reviews opened: accepted transitions into {@code in_review}. */
  public long reviewsOpened() throws SQLException {
    long[] count = {0};
    query(
        "SELECT count(*) AS n FROM app_generation_transitions WHERE accepted AND to_phase = 'in_review'",
        rows -> count[0] = rows.getLong("n"));
    return count[0];
  }

  /** The id of the latest transition: a mark to look for what happened after it. */
  public long lastTransitionId() throws SQLException {
    long[] id = {0};
    query(
        "SELECT coalesce(max(id), 0) AS id FROM app_generation_transitions",
        rows -> id[0] = rows.getLong("id"));
    return id[0];
  }

  /** Operations with an accepted transition after the mark. */
  public Set<String> writtenSince(long mark) throws SQLException {
    Set<String> written = new HashSet<>();
    query(
        "SELECT DISTINCT operation_id FROM app_generation_transitions WHERE accepted AND id > ?",
        rows -> written.add(rows.getString("operation_id")),
        mark);
    return written;
  }

  /** When the first accepted transition of the operation after the mark was recorded, if any. */
  public Optional<Instant> firstWriteAfter(long mark, String operation) throws SQLException {
    List<Instant> at = new ArrayList<>();
    query(
        "SELECT min(at) AS at FROM app_generation_transitions"
            + " WHERE accepted AND id > ? AND operation_id = ?",
        rows ->
            Optional.ofNullable(rows.getTimestamp("at"))
                .map(Timestamp::toInstant)
                .ifPresent(at::add),
        mark,
        operation);
    return at.stream().findFirst();
  }

  /**
   * Reviews an operator resolved as "not submitted" (each permits one more POST), per operation.
   */
  public Map<String, Long> notSubmittedResolutions() throws SQLException {
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
