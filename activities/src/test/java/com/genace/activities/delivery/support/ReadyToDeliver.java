package com.genace.activities.delivery.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.model.NextAction;
import com.genace.workflows.model.RemoteStatus;

/**
 * Puts an operation where delivery starts through the ledger's own writes, as the delivery tests'
 * setup: created, accepted as a job, that job observed succeeded with its outputs.
 */
public final class ReadyToDeliver {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ReadyToDeliver() {}

  /** Created with {@code model}, accepted as {@code snapshot}'s job, which succeeded. */
  public static void acceptedAndSucceeded(
      OperationsLedger ledger, String operationId, String model, JobSnapshot snapshot) {
    assertThat(ledger.create(new NewOperation(operationId, model, "{\"p\":1}"))).isTrue();
    Lease dispatch = claim(ledger, operationId, NextAction.DISPATCH);
    assertThat(ledger.markSubmitting(dispatch)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordAccepted(dispatch, snapshot.id())).isEqualTo(WriteResult.APPLIED);
    recordSucceeded(ledger, operationId, snapshot);
  }

  /** The observed job's terminal snapshot, recorded under an observe lease. */
  public static void recordSucceeded(
      OperationsLedger ledger, String operationId, JobSnapshot snapshot) {
    Lease observe = claim(ledger, operationId, NextAction.OBSERVE);
    try {
      assertThat(
              ledger.recordSnapshot(
                  observe, RemoteStatus.SUCCEEDED, JSON.writeValueAsString(snapshot), null))
          .isEqualTo(WriteResult.APPLIED);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Lease claim(OperationsLedger ledger, String operationId, NextAction action) {
    ClaimResult claim = ledger.claim(operationId, "test-setup", action);
    assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
    return ((ClaimResult.Acquired) claim).lease();
  }
}
