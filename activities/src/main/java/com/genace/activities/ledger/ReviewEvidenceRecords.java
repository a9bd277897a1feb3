package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The evidence kept on review cases. Not an exclusive write: it changes no state of the operation
 * (no phase, action or lease), only records what Genace told, and only while the review it was
 * gathered for is open: fenced by that review's opening time, so that a late attempt gathered for
 * an earlier review never overwrites a later one's.
 */
final class ReviewEvidenceRecords {

  private final Sql sql;

  ReviewEvidenceRecords(Sql sql) {
    this.sql = sql;
  }

  /**
   * Keeps the evidence of the operation's open review: appended to every gathering kept before
   * (V21), and as the latest, which replaces an earlier gathering's as what {@code ops show}
   * prints.
   */
  static final SqlStatement RECORD =
      SqlStatement.of(
          "record_review_evidence",
          """
          WITH review AS (
            SELECT o.operation_id, ?::jsonb AS evidence, ?::text AS summary
            FROM app_generation_operations o
            WHERE o.operation_id = ? AND o.phase = 'in_review' AND o.review_opened_at = ?
          ),
          kept AS (
            INSERT INTO app_review_evidence_history (operation_id, evidence, summary)
            SELECT operation_id, evidence, summary FROM review
          ),
          latest AS (
            INSERT INTO app_review_evidence (operation_id, evidence, summary)
            SELECT operation_id, evidence, summary FROM review
            ON CONFLICT (operation_id) DO UPDATE
              SET evidence = excluded.evidence, summary = excluded.summary,
                  gathered_at = clock_timestamp()
            RETURNING operation_id
          )
          SELECT count(*) AS recorded FROM latest
          """);

  boolean record(String operationId, Instant reviewOpenedAt, String evidenceJson, String summary) {
    long rows =
        sql.queryExactlyOne(
            RECORD,
            p ->
                p.json(evidenceJson) // evidence
                    .text(summary) // summary
                    .text(operationId) // operation_id
                    .timestamp(reviewOpenedAt), // review_opened_at
            rs -> rs.getLong("recorded"));
    if (rows > 1) {
      throw new IllegalStateException("evidence recorded on " + rows + " rows for " + operationId);
    }
    return rows == 1;
  }

  /**
   * Every job id any gathering of the operation's evidence found carrying its operation id, in
   * every review it had: the kept gatherings (V21) and the latest one (all a 0.1.0 worker kept).
   */
  static final SqlStatement JOBS_EVER_FOUND =
      SqlStatement.of(
          "review_evidence_jobs_ever_found",
          """
          SELECT DISTINCT job->>'id' AS job_id
          FROM (SELECT evidence FROM app_review_evidence_history WHERE operation_id = ?
                UNION ALL
                SELECT evidence FROM app_review_evidence WHERE operation_id = ?) e,
               jsonb_array_elements(coalesce(e.evidence->'jobs', '[]'::jsonb)) job
          WHERE job->>'operationId' = ? AND job->>'id' IS NOT NULL
          """);

  List<String> jobsEverFound(String operationId) {
    return sql.query(
        JOBS_EVER_FOUND,
        p ->
            p.text(operationId) // app_review_evidence_history.operation_id
                .text(operationId) // app_review_evidence.operation_id
                .text(operationId), // jobs[].operationId
        rs -> rs.getString("job_id"));
  }

  static final SqlStatement FIND =
      SqlStatement.of(
          "find_review_evidence",
          """
          SELECT operation_id, evidence::text AS evidence, summary, gathered_at
          FROM app_review_evidence WHERE operation_id = ?
          """);

  Optional<ReviewEvidenceRow> find(String operationId) {
    return sql.queryOne(FIND, p -> p.text(operationId), ReviewEvidenceRecords::row);
  }

  /** The evidence of the reviews open now (gathered since they opened), oldest review first. */
  static final SqlStatement OPEN_REVIEWS =
      SqlStatement.of(
          "open_review_evidence",
          """
          SELECT e.operation_id, e.evidence::text AS evidence, e.summary, e.gathered_at
          FROM app_generation_operations o
          JOIN app_review_evidence e ON e.operation_id = o.operation_id
          WHERE o.phase = 'in_review' AND e.gathered_at >= o.review_opened_at
          ORDER BY o.review_opened_at
          LIMIT ?
          """);

  List<ReviewEvidenceRow> openReviews(int limit) {
    return sql.query(OPEN_REVIEWS, p -> p.integer(limit), ReviewEvidenceRecords::row);
  }

  private static ReviewEvidenceRow row(java.sql.ResultSet rs) throws java.sql.SQLException {
    return new ReviewEvidenceRow(
        rs.getString("operation_id"),
        rs.getString("evidence"),
        rs.getString("summary"),
        Sql.instant(rs, "gathered_at").orElseThrow());
  }
}
