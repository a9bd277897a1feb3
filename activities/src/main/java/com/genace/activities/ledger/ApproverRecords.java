package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Who may approve a decision that spends again ({@code app_approvers}: a name and an Ed25519 public
 * key), the approvals already consumed ({@code app_approvals_used}) and the digests of the review
 * evidence an approval may answer. Reached by {@link OperationsLedger#approvers}; every method is
 * one statement.
 */
public final class ApproverRecords {

  /** A registered approver. */
  public record Approver(String name, String publicKey, String addedBy, Instant addedAt) {}

  private final Sql sql;

  ApproverRecords(Sql sql) {
    this.sql = sql;
  }

  static final SqlStatement LIST =
      SqlStatement.of(
          "list_approvers",
          "SELECT name, public_key, added_by, added_at FROM app_approvers ORDER BY name");

  public List<Approver> list() {
    return sql.query(LIST, p -> {}, ApproverRecords::approver);
  }

  static final SqlStatement FIND =
      SqlStatement.of(
          "find_approver",
          "SELECT name, public_key, added_by, added_at FROM app_approvers WHERE name = ?");

  public Optional<Approver> find(String name) {
    return sql.queryOne(FIND, p -> p.text(name), ApproverRecords::approver);
  }

  static final SqlStatement ANY =
      SqlStatement.of("any_approver", "SELECT EXISTS (SELECT 1 FROM app_approvers) AS any");

  /** Whether any approver is registered: until one is, spending is unguarded. */
  public boolean anyRegistered() {
    return sql.queryExactlyOne(ANY, p -> {}, rs -> rs.getBoolean("any"));
  }

  static final SqlStatement ADD =
      SqlStatement.of(
          "add_approver",
          """
          INSERT INTO app_approvers (name, public_key, added_by) VALUES (?, ?, ?)
          ON CONFLICT (name) DO NOTHING
          """);

  /** False when the name is registered already (remove it first to change its key). */
  public boolean add(String name, String publicKey, String addedBy) {
    Identifiers.requireOwner(name);
    return sql.update(ADD, p -> p.text(name).text(publicKey).text(addedBy)) == 1;
  }

  static final SqlStatement REMOVE =
      SqlStatement.of("remove_approver", "DELETE FROM app_approvers WHERE name = ?");

  public boolean remove(String name) {
    return sql.update(REMOVE, p -> p.text(name)) == 1;
  }

  /**
   * Consumes an approval for the review opened at {@code reviewOpenedAt}: the first use, or the
   * same review's again (an activity retried after it recorded the use), is allowed; any other is a
   * replay.
   */
  static final SqlStatement USE =
      SqlStatement.of(
          "use_approval",
          """
          WITH used AS (
            INSERT INTO app_approvals_used (signature_sha256, operation_id, review_opened_at, approver)
            VALUES (?, ?, ?, ?)
            ON CONFLICT (signature_sha256) DO NOTHING
            RETURNING 1
          )
          SELECT EXISTS (SELECT 1 FROM used)
              OR EXISTS (SELECT 1 FROM app_approvals_used
                         WHERE signature_sha256 = ? AND operation_id = ? AND review_opened_at = ?)
              AS allowed
          """);

  /** False when the approval answered another review (or operation) before: a replay. */
  public boolean use(
      String signatureSha256, String operationId, Instant reviewOpenedAt, String approver) {
    return sql.queryExactlyOne(
        USE,
        p ->
            p.text(signatureSha256)
                .text(operationId)
                .timestamp(reviewOpenedAt)
                .text(approver)
                .text(signatureSha256)
                .text(operationId)
                .timestamp(reviewOpenedAt),
        rs -> rs.getBoolean("allowed"));
  }

  /**
   * The SHA-256 (hex) of each evidence gathering of the operation since {@code since}, as the
   * ledger keeps it (the jsonb's text): an approval answers one of them. PostgreSQL computes it, so
   * the approver's command and the checking worker digest the same text.
   */
  static final SqlStatement EVIDENCE_DIGESTS =
      SqlStatement.of(
          "evidence_digests",
          """
          SELECT encode(sha256(convert_to(evidence::text, 'UTF8')), 'hex') AS digest
          FROM app_review_evidence_history WHERE operation_id = ? AND gathered_at >= ?
          UNION
          SELECT encode(sha256(convert_to(evidence::text, 'UTF8')), 'hex')
          FROM app_review_evidence WHERE operation_id = ? AND gathered_at >= ?
          """);

  public List<String> evidenceDigestsSince(String operationId, Instant since) {
    return sql.query(
        EVIDENCE_DIGESTS,
        p -> p.text(operationId).timestamp(since).text(operationId).timestamp(since),
        rs -> rs.getString("digest"));
  }

  static final SqlStatement LATEST_EVIDENCE_DIGEST =
      SqlStatement.of(
          "latest_evidence_digest",
          """
          SELECT encode(sha256(convert_to(evidence::text, 'UTF8')), 'hex') AS digest
          FROM app_review_evidence WHERE operation_id = ?
          """);

  /** The digest of the review evidence an operator sees now ({@code ops show}), if any. */
  public Optional<String> latestEvidenceDigest(String operationId) {
    return sql.queryOne(
        LATEST_EVIDENCE_DIGEST, p -> p.text(operationId), rs -> rs.getString("digest"));
  }

  private static Approver approver(java.sql.ResultSet rs) throws java.sql.SQLException {
    return new Approver(
        rs.getString("name"),
        rs.getString("public_key"),
        rs.getString("added_by"),
        rs.getTimestamp("added_at").toInstant());
  }
}
