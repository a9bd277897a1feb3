package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What was spent ({@code ./genace ops spend}): the credits committed with each acceptance (V18)
 * within a window, grouped, and apart from them what the POSTs of unknown outcome may have spent.
 *
 * <p>Committed credits are read from the partial index of committed operations by time (V18_1), so
 * a day's report reads that day's entries, not the months kept behind it. Possibly spent are the
 * operations in review whose dispatch outcome the ledger marked {@code unknown} (a review opened
 * while a POST may have left: {@code post_outcome_unknown}, {@code dispatch_interrupted}, {@code
 * drained_during_post}, a submitting row the sweeper found): unfinished operations, read from the
 * unfinished index, each counted at its model's estimate, as nothing was committed for them.
 */
public final class SpendReport {

  /** How the credits are grouped. */
  public enum Grouping {
    ACCOUNT,
    MODEL,
    /** The UTC day the credits were committed (or the POST left, for possibly spent). */
    DAY;

    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One group: its key (account, model or {@code YYYY-MM-DD}), credits and operations. */
  public record Line(String key, long credits, long operations) {}

  private final Sql sql;

  SpendReport(Sql sql) {
    this.sql = sql;
  }

  /** The group's key of row {@code o}, at time {@code at}, for grouping {@code grouping}. */
  private static String key(String grouping, String at) {
    return """
        CASE %s WHEN 'account' THEN o.account WHEN 'model' THEN o.model
                ELSE to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD') END"""
        .formatted(grouping, at);
  }

  static final SqlStatement COMMITTED =
      SqlStatement.of(
          "spend_committed",
          """
          SELECT %s AS key, sum(o.credits)::bigint AS credits, count(*) AS operations
          FROM app_generation_operations o
          WHERE o.credits_committed_at >= now() - ?::interval
          GROUP BY 1 ORDER BY 1
          """
              .formatted(key("?::text", "o.credits_committed_at")));

  static final SqlStatement POSSIBLY_SPENT =
      SqlStatement.of(
          "spend_possibly",
          """
          WITH args AS (
            SELECT ?::text AS grouping, ?::interval AS since,
                   ?::jsonb AS costs, ?::bigint AS default_cost
          )
          SELECT %s AS key, sum(coalesce(o.credits, %s))::bigint AS credits,
                 count(*) AS operations
          FROM app_generation_operations o CROSS JOIN args a
          WHERE o.next_action <> 'none' AND o.phase = 'in_review'
            AND o.dispatch_outcome = 'unknown' AND o.credits_committed_at IS NULL
            AND coalesce(o.submitting_since, o.review_opened_at)
                >= now() - a.since
          GROUP BY 1 ORDER BY 1
          """
              .formatted(
                  key("a.grouping", "coalesce(o.submitting_since, o.review_opened_at)"),
                  CreditEstimate.SQL_COST));

  /** Credits committed in the last {@code since}, by group. */
  public List<Line> committed(Duration since, Grouping by) {
    return sql.query(
        COMMITTED,
        p ->
            p.text(by.wire()) // grouping
                .interval(since), // credits_committed_at window
        rs -> new Line(rs.getString("key"), rs.getLong("credits"), rs.getLong("operations")));
  }

  /**
   * What the POSTs of unknown outcome that left in the last {@code since} may have spent, at {@code
   * estimate}'s cost of each one's model.
   */
  public List<Line> possiblySpent(Duration since, Grouping by, CreditEstimate estimate) {
    return sql.query(
        POSSIBLY_SPENT,
        p ->
            p.text(by.wire()) // grouping
                .interval(since) // submitting_since window
                .json(estimate.json()) // credits by model
                .bigint(estimate.defaultCost()), // credits of a model not listed
        rs -> new Line(rs.getString("key"), rs.getLong("credits"), rs.getLong("operations")));
  }
}
