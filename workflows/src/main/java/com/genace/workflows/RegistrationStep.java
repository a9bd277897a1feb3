package com.genace.workflows;

import com.genace.client.GenerationRequest;

/**
 * Registers the operation in the ledger ({@code pending}) in the first dispatch attempt ({@link
 * DispatchStep}), which {@link #registerNow} backs up when that attempt did not report back.
 */
final class RegistrationStep {

  private final OperationState operation;

  /** Whether the first dispatch attempt is still to register the operation. */
  private boolean byFirstDispatch;

  RegistrationStep(OperationState operation) {
    this.operation = operation;
  }

  /**
   * The operation's first run hands registration to its first dispatch attempt. The client's start
   * set {@code GenacePhase = pending} already; a continued run registers nothing.
   */
  void registerWithFirstDispatch() {
    byFirstDispatch = true;
  }

  /**
   * Whether the next dispatch attempt is the first one and registers the operation; asking hands
   * that over, so it is true once.
   */
  boolean takeFirstDispatch() {
    boolean first = byFirstDispatch;
    byFirstDispatch = false;
    return first;
  }

  /**
   * Registers the operation with the scheduled activity, retried freely; registering an operation
   * already registered changes nothing. For a first dispatch that did not report back, and a cancel
   * that came before it.
   */
  void registerNow(GenerationRequest request) {
    ActivityStubs.registration("register " + operation.operationId()).register(request);
  }
}
