package com.genace.activities.ledger;

/** No operation with the given id exists in the ledger. */
public class UnknownOperationException extends LedgerException {

  private final String operationId;

  public UnknownOperationException(String operationId) {
    super("unknown operation '" + operationId + "'");
    this.operationId = operationId;
  }

  public String operationId() {
    return operationId;
  }
}
