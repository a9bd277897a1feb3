package com.genace.registration;

import com.genace.ledger.NewOperation;
import com.genace.ledger.OperationsLedger;
import com.genace.model.FailureTypes;
import com.genace.workflows.GenerationRequest;
import io.temporal.failure.ApplicationFailure;

/**
 * Registering an operation in the ledger ({@code pending}), as both activities that do it run it:
 * the scheduled registration and the first dispatch attempt.
 */
public final class Registration {

  private Registration() {}

  /**
   * The ledger's idempotent insert: an operation registered already is left as it stands.
   *
   * @throws ApplicationFailure non-retryable {@link FailureTypes#INVALID_REQUEST} when the ledger
   *     refuses the request's identifiers or input, which no attempt would change
   */
  public static void register(OperationsLedger ledger, GenerationRequest request) {
    try {
      ledger.create(
          new NewOperation(
              request.operationId(),
              request.model(),
              request.inputJson(),
              request.accountOrDefault()));
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.INVALID_REQUEST);
    }
  }
}
