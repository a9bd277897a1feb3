package com.genace.activities.ledger;

/**
 * What {@link OperationsLedger#create} records: the operation id, the model, the JSON input and the
 * account whose allowance it draws on.
 */
public record NewOperation(String operationId, String model, String inputJson, String account) {

  public static final String DEFAULT_ACCOUNT = "default";

  public NewOperation(String operationId, String model, String inputJson) {
    this(operationId, model, inputJson, DEFAULT_ACCOUNT);
  }

  public NewOperation {
    if (account == null || account.isBlank()) {
      account = DEFAULT_ACCOUNT;
    }
    Identifiers.requireOperationId(operationId);
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("model must not be blank");
    }
    if (inputJson == null || inputJson.isBlank()) {
      throw new IllegalArgumentException("input must be a JSON object");
    }
  }
}
