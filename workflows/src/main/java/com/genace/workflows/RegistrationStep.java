package com.genace.workflows;

import com.genace.model.Phase;

/**
 * Registers the operation in the ledger ({@code pending}), where {@link
 * VersionMarkers#registration} says: at the start (a scheduled or, in version 1, a local activity),
 * or, in version {@value VersionMarkers#REGISTER_IN_FIRST_DISPATCH}, in the first dispatch attempt
 * ({@link DispatchStep}), which {@link #registerNow} backs up when that attempt did not report
 * back.
 */
final class RegistrationStep {

  private final OperationState operation;
  private final VersionMarkers versions;

  /** Whether the first dispatch attempt is still to register the operation. */
  private boolean byFirstDispatch;

  RegistrationStep(OperationState operation, VersionMarkers versions) {
    this.operation = operation;
    this.versions = versions;
  }

  void register(GenerationRequest request) {
    int version = versions.registration();
    if (version >= VersionMarkers.REGISTER_IN_FIRST_DISPATCH) {
      // The client's start set GenacePhase = pending already; the first dispatch publishes its own.
      byFirstDispatch = true;
    } else if (version != 1) {
      operation.setPhase(Phase.PENDING, "registering the operation");
      registerNow(request);
    } else {
      operation.setPhaseDetails("registering the operation");
      ActivityStubs.localRegistration().register(request);
    }
  }

  /**
   * A continued run: the operation was registered by the first run. The version is still asked, as
   * every run decides its own.
   */
  void resume() {
    versions.registration();
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
    ActivityStubs.ledger("register " + operation.operationId()).register(request);
  }
}
