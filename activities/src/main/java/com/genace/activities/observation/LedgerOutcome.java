package com.genace.activities.observation;

import com.genace.activities.ledger.OperationRow;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.model.RemoteStatus;
import com.genace.workflows.observation.ObservationResult;
import java.util.Optional;

/** What the ledger already says about an operation that observation finds past its turn. */
final class LedgerOutcome {

  private LedgerOutcome() {}

  /**
   * The observation's end as the ledger shows it: succeeded while delivering or delivered, the
   * stored terminal status when failed, the review when in review; empty in any other phase.
   */
  static Optional<ObservationResult> of(OperationRow row) {
    String remoteJobId = row.remoteJobId().orElse(null);
    return switch (row.phase()) {
      case DELIVERING, DELIVERED ->
          Optional.of(ObservationResult.terminal(RemoteStatus.SUCCEEDED, remoteJobId, null));
      case FAILED ->
          Optional.of(
              ObservationResult.terminal(
                  row.remoteStatus().filter(RemoteStatus::isTerminal).orElse(RemoteStatus.FAILED),
                  remoteJobId,
                  row.failureReason().orElse(null)));
      case IN_REVIEW ->
          Optional.of(
              ObservationResult.inReview(
                  row.reviewReason()
                      .map(ReviewReason::parse)
                      .orElse(ReviewReason.REMOTE_JOB_UNOBSERVABLE),
                  remoteJobId,
                  row.reviewReason().orElse("in review")));
      default -> Optional.empty();
    };
  }
}
