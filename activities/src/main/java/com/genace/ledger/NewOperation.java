package com.genace.ledger;

/** What {@link OperationsLedger#create} records: the operation id, the model and the JSON input. */
public record NewOperation(String operationId, String model, String inputJson) {

  public NewOperation {
    Identifiers.requireOperationId(operationId);
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("model must not be blank");
    }
    if (inputJson == null || inputJson.isBlank()) {
      throw new IllegalArgumentException("input must be a JSON object");
    }
  }
}
