package com.genace.activities.dispatch;

import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a dispatch's outcome to the ledger under its dispatch lease, and says what the ledger
 * took: the POST's answer once it came back, or the {@code not_sent} of an attempt that stopped
 * before the POST. A refusal of the whole account opens the fleet-wide circuit before its {@code
 * not_sent} is recorded; a 429 holds the operation's account, and that account only, for its {@code
 * Retry-After}.
 */
final class OutcomeRecorder {

  /** Under the activity's name, beside the rest of the dispatch's lines. */
  private static final Logger log = LoggerFactory.getLogger(DispatchActivitiesImpl.class);

  private final OperationsLedger ledger;
  private final DispatchCircuit circuit;

  OutcomeRecorder(OperationsLedger ledger, DispatchCircuit circuit) {
    this.ledger = ledger;
    this.circuit = circuit;
  }

  /**
   * Records what Genace answered under the dispatch lease. An answer the ledger did not take (the
   * lease ran out or was taken over meanwhile) is reported with what the ledger needs to know: an
   * accepted job or a refusal, which would end the operation, becomes an unknown outcome (its
   * review reads what the ledger holds); an answer that created nothing keeps its outcome, as the
   * next claim reads the row (one left {@code submitting} goes to review).
   */
  DispatchResult record(Lease lease, String account, CreateOutcome outcome) {
    if (outcome instanceof CreateOutcome.Accepted accepted) {
      if (ledger.recordAccepted(lease, accepted.remoteJobId()) == WriteResult.APPLIED) {
        return new DispatchResult(DispatchOutcome.ACCEPTED, accepted.remoteJobId(), null, 0);
      }
      return new DispatchResult(
          DispatchOutcome.UNKNOWN,
          accepted.remoteJobId(),
          "Genace accepted job "
              + accepted.remoteJobId()
              + " but the dispatch lease was lost before it was recorded",
          0);
    }
    if (outcome instanceof CreateOutcome.AccountRefused refused) {
      openCircuit(lease, refused);
      return notSent(lease, DispatchOutcome.ACCOUNT_REFUSED, refused.describe(), 0);
    }
    if (outcome instanceof CreateOutcome.Refused refused) {
      if (ledger.recordRefused(lease, refused.describe()) == WriteResult.APPLIED) {
        return DispatchResult.of(DispatchOutcome.REFUSED, refused.describe());
      }
      return DispatchResult.of(
          DispatchOutcome.UNKNOWN,
          "Genace refused the request ("
              + refused.describe()
              + ") but the dispatch lease was lost before it was recorded");
    }
    if (outcome instanceof CreateOutcome.RateLimited limited) {
      holdAccount(lease, account, limited);
      return notSent(
          lease, DispatchOutcome.RATE_LIMITED, limited.describe(), limited.retryAfter().toMillis());
    }
    if (outcome instanceof CreateOutcome.NotSent notSent) {
      return notSent(lease, DispatchOutcome.NOT_SENT, notSent.describe(), 0);
    }
    ledger.openReview(lease, ReviewReason.POST_OUTCOME_UNKNOWN.wire(), outcome.describe());
    return DispatchResult.of(DispatchOutcome.UNKNOWN, outcome.describe());
  }

  /**
   * Records an outcome that created nothing. When the ledger does not take it, the outcome stands
   * (nothing was created) and says so: the row keeps what it holds, and the next claim reads it.
   */
  DispatchResult notSent(
      Lease lease, DispatchOutcome outcome, String detail, long retryAfterMillis) {
    WriteResult written = ledger.recordNotSent(lease, stored(outcome), detail);
    String said =
        written == WriteResult.APPLIED
            ? detail
            : detail
                + "; the ledger did not record it ("
                + written.name().toLowerCase(Locale.ROOT)
                + "): the next claim reads what it holds";
    return new DispatchResult(outcome, null, said, retryAfterMillis);
  }

  /**
   * Pauses dispatch fleet-wide. A failure here changes nothing about this operation (nothing was
   * created, it stays dispatchable): its next POST meets the same refusal and tries again.
   */
  private void openCircuit(Lease lease, CreateOutcome.AccountRefused refused) {
    try {
      if (circuit.open(refused.problem(), refused.reason())) {
        log.warn(
            "dispatch circuit opened fleet-wide ({}): operation {} was {}; queued operations wait",
            refused.problem().wire(),
            lease.operationId(),
            refused.describe());
      }
    } catch (RuntimeException e) {
      log.error(
          "could not open the dispatch circuit ({}) after operation {} was refused: {}",
          refused.problem().wire(),
          lease.operationId(),
          e.getMessage());
    }
  }

  /**
   * Holds the account's next dispatches on every worker until the 429's {@code Retry-After} has
   * passed: its backlog waits instead of knocking, and other accounts' dispatch runs on. A failure
   * here changes nothing about this operation: it waits its own {@code Retry-After} all the same.
   */
  private void holdAccount(Lease lease, String account, CreateOutcome.RateLimited limited) {
    try {
      ledger
          .accounts()
          .restrictions()
          .hold(
              account,
              lease.operationId(),
              limited.retryAfter(),
              "Genace answered 429 to operation " + lease.operationId() + "'s POST",
              lease.owner());
    } catch (RuntimeException e) {
      log.warn(
          "could not hold account {} after a 429 for operation {}: {}",
          account,
          lease.operationId(),
          e.getMessage());
    }
  }

  /** The ledger's {@code dispatch_outcome}: the outcome's name in lower case. */
  private static String stored(DispatchOutcome outcome) {
    return outcome.name().toLowerCase(Locale.ROOT);
  }
}
