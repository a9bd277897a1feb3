package com.genace.activities.registration;

import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.client.GenerationRequest;
import com.genace.client.RequestDifferences;
import com.genace.workflows.model.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.util.List;

/**
 * Registering an operation in the ledger ({@code pending}), as both activities that do it run it:
 * the scheduled registration and the first dispatch attempt.
 */
public final class Registration {

  private Registration() {}

  /**
   * The ledger's idempotent insert: an operation registered already with the same request is left
   * as it stands.
   *
   * @throws ApplicationFailure non-retryable {@link FailureTypes#INVALID_REQUEST} when the ledger
   *     refuses the request's identifiers or input, and {@link FailureTypes#OPERATION_CONFLICT}
   *     when it holds the id with another request; no attempt would change either
   */
  public static void register(OperationsLedger ledger, GenerationRequest request) {
    boolean created;
    try {
      created =
          ledger.create(
              new NewOperation(
                  request.operationId(),
                  request.model(),
                  request.inputJson(),
                  request.accountOrDefault()));
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.INVALID_REQUEST);
    }
    if (!created) {
      requireSameRequest(ledger.get(request.operationId()), request);
    }
  }

  private static void requireSameRequest(OperationRow row, GenerationRequest request) {
    GenerationRequest registered =
        new GenerationRequest(
            row.operationId(), row.model(), row.requestJson(), null, row.account());
    List<String> differences = RequestDifferences.between(registered, request);
    if (!differences.isEmpty()) {
      // The same words as the join update's refusal and the Java client's: one rule, one message.
      throw ApplicationFailure.newNonRetryableFailure(
          RequestDifferences.conflict(request.operationId(), differences)
              + " (the ledger holds the first; nothing dispatched)",
          FailureTypes.OPERATION_CONFLICT);
    }
  }
}
