package com.genace.activities.recovery;

/** Reads what Temporal holds for an operation ({@link HistoryEvidence}). Reads only. */
public interface OperationHistory {

  /**
   * Every run of the operation's workflow that can be found, each with what its history holds.
   *
   * @throws HistoryUnavailableException when Temporal could not answer: nothing is known then, and
   *     nothing may be decided on the absence of a run
   */
  HistoryEvidence read(String operationId);
}
