package com.genace.registration;

import com.genace.ledger.OperationsLedger;
import com.genace.workflows.GenerationRequest;

/** Registers as {@link Registration#register} does, refusing what it refuses. */
public final class RegistrationActivitiesImpl implements RegistrationActivities {

  private final OperationsLedger ledger;

  public RegistrationActivitiesImpl(OperationsLedger ledger) {
    this.ledger = ledger;
  }

  @Override
  public void register(GenerationRequest request) {
    Registration.register(ledger, request);
  }
}
