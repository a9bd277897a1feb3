package com.genace.activities.ledger;

import com.genace.activities.db.Params;
import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The bulk commands' selection ({@code ops resolve|cancel} with filters): pages of one unfinished
 * phase, oldest first, and their count. Both walk the unfinished index {@code (phase, created_at)
 * WHERE next_action <> 'none'}, a range of one phase between the creation bounds, so their cost
 * follows the work in flight in that phase, never the history; the other filters (review reason,
 * account, model, cancel requested) are checked on those rows. A page starts past the last row of
 * the previous one ({@code (created_at, operation_id)}, a keyset): rows that leave the selection
 * meanwhile (resolved, cancelled) move nothing, and a second run starts over from the oldest.
 */
final class OperationSelections {

  private static final String MATCHING =
      """
      FROM app_generation_operations o
      WHERE o.next_action <> 'none' AND o.phase = ?
        AND o.created_at >= coalesce(?::timestamptz, '-infinity'::timestamptz)
        AND o.created_at < coalesce(?::timestamptz, 'infinity'::timestamptz)
        AND o.created_at <= clock_timestamp() - ?::interval
        AND (?::text IS NULL OR o.review_reason = ?::text)
        AND o.account = coalesce(?::text, o.account)
        AND o.model = coalesce(?::text, o.model)
        AND (NOT ? OR o.cancel_requested_at IS NULL)
      """;

  static final SqlStatement SELECT_PAGE =
      SqlStatement.of(
          "select_page",
          "SELECT * "
              + MATCHING
              + """
                AND (?::text IS NULL
                     OR (o.created_at >= ?::timestamptz
                         AND (o.created_at, o.operation_id) > (?::timestamptz, ?::text)))
              ORDER BY o.created_at, o.operation_id
              LIMIT ?
              """);

  static final SqlStatement COUNT =
      SqlStatement.of("count_selection", "SELECT count(*) AS n " + MATCHING);

  private final Sql sql;

  OperationSelections(Sql sql) {
    this.sql = sql;
  }

  List<OperationRow> page(
      OperationSelection selection, Optional<OperationSelection.After> after, int limit) {
    String afterId = after.map(OperationSelection.After::operationId).orElse(null);
    return sql.query(
        SELECT_PAGE,
        p -> {
          bindMatching(p, selection);
          p.text(afterId) // past a row?
              .timestampOrNull(after.map(OperationSelection.After::createdAt).orElse(null))
              .timestampOrNull(after.map(OperationSelection.After::createdAt).orElse(null))
              .text(afterId) // that row's operation_id
              .integer(limit); // LIMIT
        },
        OperationRecords::row);
  }

  long count(OperationSelection selection) {
    return sql.queryExactlyOne(COUNT, p -> bindMatching(p, selection), rs -> rs.getLong("n"));
  }

  private static void bindMatching(Params p, OperationSelection s) throws SQLException {
    p.text(s.phase().wire()) // phase
        .timestampOrNull(s.createdAfter().orElse(null)) // created at or after
        .timestampOrNull(s.createdBefore().orElse(null)) // created before
        .interval(s.olderThan()) // created at least this long ago
        .text(s.reviewReason().orElse(null)) // review reason given?
        .text(s.reviewReason().orElse(null)) // review_reason
        .text(s.account().orElse(null)) // account
        .text(s.model().orElse(null)) // model
        .bool(s.withoutCancelRequest()); // leave out requested cancels
  }
}
