package com.genace.activities.recovery;

/** Temporal could not say what it holds for an operation; absence of a run proves nothing then. */
public final class HistoryUnavailableException extends RuntimeException {

  public HistoryUnavailableException(String operationId, Throwable cause) {
    super(
        "could not read Temporal's history of operation " + operationId + ": " + cause.getMessage(),
        cause);
  }
}
