package com.genace.activities.registration;

import com.genace.activities.ledger.OperationsLedger;
import com.genace.client.GenerationRequest;
import com.genace.workflows.registration.RegistrationActivities;

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
