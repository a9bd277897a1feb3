package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.Phase;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The ledger's side of a repair from Temporal's history ({@link RepairWrites}): a row behind what
 * the other store holds moves forward to it, a lost row is written again, and every job id any
 * record of the ledger holds for an operation is found in one place, for whoever must decide
 * whether a POST may have been accepted.
 */
public final class LedgerRecovery {

  private final Sql sql;
  private final OperationRecords records;
  private final RepairWrites repairs;
  private final ReviewEvidenceRecords evidence;
  private final CreditEstimate credits;
  private final LedgerStats stats;

  LedgerRecovery(
      Sql sql, ReviewEvidenceRecords evidence, CreditEstimate credits, LedgerStats stats) {
    this.sql = sql;
    this.records = new OperationRecords(sql);
    this.repairs = new RepairWrites(sql);
    this.evidence = evidence;
    this.credits = credits;
    this.stats = stats;
  }

  /**
   * pending, submitting or in_review → observing {@code remoteJobId}, which the other store holds,
   * fenced by the revision read and a free lease.
   *
   * @param evidence a JSON object for the history row: which run, which record of it
   * @return false when the row changed since it was read, a live lease holds it, or its phase is
   *     not behind observing (nothing written)
   */
  public boolean recoverObserving(
      String operationId,
      long revision,
      String owner,
      String remoteJobId,
      Long credits,
      String evidence) {
    Identifiers.requireOperationId(operationId);
    Identifiers.requireOwner(owner);
    Identifiers.requireRemoteJobId(remoteJobId);
    LogFields.remoteJob(remoteJobId);
    FenceOutcome outcome =
        repairs.recoverObserving(
            operationId,
            revision,
            owner,
            OperationsLedger.requireJsonObject(evidence),
            remoteJobId,
            credits,
            "recovered from Temporal's history: job " + remoteJobId,
            this.credits);
    return applied("recovered", operationId, outcome);
  }

  /**
   * Any unfinished phase → {@code ended} (delivered, failed or abandoned) as a run of the operation
   * ended, fenced as {@link #recoverObserving}.
   *
   * @param manifestJson the delivery's manifest ({@code {"artifacts": [...]}}), needed for
   *     delivered
   * @param note why it failed or was abandoned (kept as the failure reason)
   */
  public boolean recoverEnd(
      String operationId,
      long revision,
      String owner,
      Phase ended,
      String remoteJobId,
      Long credits,
      String manifestJson,
      String note,
      String evidence) {
    Identifiers.requireOperationId(operationId);
    Identifiers.requireOwner(owner);
    requireEnd(ended, manifestJson);
    if (remoteJobId != null) {
      Identifiers.requireRemoteJobId(remoteJobId);
    }
    FenceOutcome outcome =
        repairs.recoverEnd(
            operationId,
            revision,
            owner,
            OperationsLedger.requireJsonObject(evidence),
            ended.wire(),
            remoteJobId,
            credits,
            manifestJson == null ? null : OperationsLedger.requireJsonObject(manifestJson),
            note,
            this.credits);
    return applied("recovered_end", operationId, outcome);
  }

  /**
   * Writes a row the ledger lost again, at the phase Temporal's history shows ({@code pending},
   * {@code observing} with its job, {@code in_review}, or an end). Idempotent.
   *
   * @return false when the row exists (left as it is)
   */
  public boolean recreate(
      NewOperation operation,
      Phase phase,
      String remoteJobId,
      Long credits,
      String manifestJson,
      String note,
      String reviewReason,
      String owner,
      String evidence) {
    Identifiers.requireOwner(owner);
    switch (phase) {
      case OBSERVING -> Identifiers.requireRemoteJobId(remoteJobId);
      case IN_REVIEW -> {
        if (reviewReason == null || reviewReason.isBlank()) {
          throw new IllegalArgumentException("a row re-created in review needs its reason");
        }
      }
      case DELIVERED, FAILED, ABANDONED -> requireEnd(phase, manifestJson);
      case PENDING -> {
        if (remoteJobId != null) {
          throw new IllegalArgumentException("a pending row holds no job: recreate it observing");
        }
      }
      default -> throw new IllegalArgumentException("a row is not re-created " + phase.wire());
    }
    boolean created =
        repairs.recreate(
            new RepairWrites.Recreated(
                operation,
                phase.wire(),
                remoteJobId,
                credits,
                manifestJson == null ? null : OperationsLedger.requireJsonObject(manifestJson),
                note,
                reviewReason),
            owner,
            OperationsLedger.requireJsonObject(evidence));
    if (created) {
      stats.transition("recreated");
    }
    return created;
  }

  static final SqlStatement JOB_IDS_OF_TRANSITIONS =
      SqlStatement.of(
          "job_ids_of_transitions",
          """
          SELECT details->>'remote_job_id' AS remote_job_id, min(id) AS first_id
          FROM app_generation_transitions
          WHERE operation_id = ? AND details->>'remote_job_id' IS NOT NULL
          GROUP BY 1 ORDER BY first_id
          """);

  /**
   * Every job id the ledger holds for the operation, each once: the row's own, every transition's
   * (accepted or denied: a denied acceptance's job exists all the same), and every job a review's
   * evidence found carrying the operation's id. Empty: the ledger holds no sign that a POST of it
   * was accepted.
   */
  public Set<String> knownJobIds(String operationId) {
    Identifiers.requireOperationId(operationId);
    Set<String> ids = new LinkedHashSet<>();
    records.find(operationId).flatMap(OperationRow::remoteJobId).ifPresent(ids::add);
    ids.addAll(
        sql.query(
            JOB_IDS_OF_TRANSITIONS,
            p -> p.text(operationId), // operation_id
            rs -> rs.getString("remote_job_id")));
    ids.addAll(evidence.jobsEverFound(operationId));
    return ids;
  }

  static final SqlStatement MISSING_OPERATIONS =
      SqlStatement.of(
          "missing_operations",
          """
          SELECT id.operation_id FROM unnest(?::text[]) AS id(operation_id)
          WHERE NOT EXISTS (
            SELECT 1 FROM app_generation_operations o WHERE o.operation_id = id.operation_id
          )
          """);

  /** The operations of {@code operationIds} the ledger holds no row of, in one statement. */
  public List<String> missing(List<String> operationIds) {
    if (operationIds.isEmpty()) {
      return List.of();
    }
    operationIds.forEach(Identifiers::requireOperationId);
    return sql.query(
        MISSING_OPERATIONS,
        p -> p.texts(operationIds), // operation_id
        rs -> rs.getString("operation_id"));
  }

  private boolean applied(String event, String operationId, FenceOutcome outcome) {
    if (!outcome.found()) {
      throw new UnknownOperationException(operationId);
    }
    if (outcome.applied() > 1) {
      throw new IllegalStateException(
          event + " changed " + outcome.applied() + " rows of " + operationId);
    }
    if (outcome.applied() == 1) {
      stats.transition(event);
      return true;
    }
    return false;
  }

  private static void requireEnd(Phase ended, String manifestJson) {
    if (ended != Phase.DELIVERED && ended != Phase.FAILED && ended != Phase.ABANDONED) {
      throw new IllegalArgumentException(
          "an operation ends delivered, failed or abandoned, not " + ended);
    }
    if (ended == Phase.DELIVERED && manifestJson == null) {
      throw new IllegalArgumentException("a delivered operation needs its manifest");
    }
  }
}
