package com.genace.workflows.lifecycle;

import com.genace.client.CancelRequest;
import io.temporal.activity.ActivityInterface;

/** The ledger's side of a cancellation. */
@ActivityInterface
public interface CancelActivities {

  /**
   * Ends a cancelled operation in the ledger, under a lease on its current action (a fenced write):
   * {@code pending}, {@code observing}, {@code delivering} and {@code in_review} end {@code
   * abandoned} with the reason, keeping the remote job id, the last snapshot and any delivery
   * manifest. A {@code submitting} operation (a POST may have left) goes to review instead. An
   * operation already terminal is left as it is; the request is only added to its history.
   *
   * <p>Idempotent and retried freely: while another worker's lease on the operation is live (a
   * status poll or a delivery finishing), it fails and is retried, so that nothing that worker
   * records is lost.
   */
  CancelOutcome endCancelled(String operationId, String requestedBy, String reason);

  /**
   * Writes an accepted cancel request to the operation's ledger row, so that it outlives the run
   * that accepted it: from then on no claim that leads to a POST takes the operation, and a run
   * restarted from the row (by the sweeper, or a client starting it again) reads it. Changes
   * neither the phase nor the revision: a POST in flight still records its outcome. Idempotent (the
   * first request stays).
   */
  CancelRecord requestCancel(String operationId, CancelRequest request);
}
