package com.genace.activities.review;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.recovery.HistoryEvidence;
import com.genace.activities.recovery.HistoryUnavailableException;
import com.genace.activities.recovery.OperationHistory;
import com.genace.activities.recovery.RunRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one rule before a {@code not_submitted} is recorded (it sends a second, paid POST): refused
 * whenever either store says a POST of the operation may have been accepted. The ledger: a job id
 * on the row, in any transition (a denied acceptance's job exists all the same) or in any evidence
 * gathered for it; committed credits. Temporal: a job in any run's history (a dispatch answered, a
 * search attribute, a carried state, a result), a run that closed {@code COMPLETED}. A history that
 * could not be read refuses too: nothing may be decided on what Temporal did not say. The review's
 * own evidence ("search not offered", "no job found") is never proof against these.
 */
final class NotSubmittedGuard {

  private final OperationsLedger ledger;
  private final OperationHistory history;

  NotSubmittedGuard(OperationsLedger ledger, OperationHistory history) {
    this.ledger = ledger;
    this.history = history;
  }

  /** Why {@code not_submitted} is refused for the operation, each fact named; empty: no reason. */
  Optional<String> refusal(String operationId) {
    List<String> facts = new ArrayList<>();
    OperationRow row = ledger.get(operationId);
    for (String job : ledger.recovery().knownJobIds(operationId)) {
      facts.add("the ledger holds job " + job);
    }
    row.creditsCommittedAt()
        .ifPresent(at -> facts.add("the ledger committed credits for an acceptance at " + at));
    try {
      HistoryEvidence held = history.read(operationId);
      facts.addAll(held.mayHaveBeenAccepted());
      held.runs().stream()
          .filter(run -> RunRecord.COMPLETED.equals(run.status()))
          .forEach(run -> facts.add("run " + run.runId() + " of its workflow closed COMPLETED"));
    } catch (HistoryUnavailableException e) {
      facts.add("Temporal's history could not be read (" + e.getMessage() + "); ask again later");
    }
    if (facts.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "not_submitted refused: a POST of this operation may have been accepted: "
            + String.join("; ", facts.stream().distinct().toList())
            + "; resolve found_remote_job (or abandon)");
  }
}
