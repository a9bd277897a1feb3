package com.genace.workflows;

import com.genace.model.Phase;

/**
 * Registers the operation in the ledger ({@code pending}), where {@link
 * VersionMarkers#registration} says.
 */
final class RegistrationStep {

  private final OperationState operation;
  private final VersionMarkers versions;

  RegistrationStep(OperationState operation, VersionMarkers versions) {
    this.operation = operation;
    this.versions = versions;
  }

  void register(GenerationRequest request) {
    if (versions.registration() != 1) {
      operation.setPhase(Phase.PENDING, "registering the operation");
      ActivityStubs.ledger("register " + operation.operationId()).register(request);
    } else {
      operation.setPhaseDetails("registering the operation");
      ActivityStubs.localRegistration().register(request);
    }
  }
}
