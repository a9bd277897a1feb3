package com.genace.activities.ledger;

import com.genace.client.CancelRequest;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * One row of {@code app_generation_operations}, as read. JSON columns are kept as text. {@code
 * phaseSince} is when the row entered its phase, as the row rules' trigger sets it on insert and on
 * every phase change (the column is nullable: see {@link #inPhaseSince}); {@code tooLongReportedAt}
 * when the ERROR line said it waits there too long; {@code deliveryFailure} the last failed
 * delivery attempt's reason, at {@code deliveryFailedAt}; {@code cancelRequested*} the cancel
 * request accepted for it ({@link #cancelRequest}); {@code credits} the estimated credits of its
 * render, committed at {@code creditsCommittedAt} with its acceptance (V18).
 */
public record OperationRow(
    String operationId,
    Phase phase,
    NextAction nextAction,
    Optional<String> remoteJobId,
    Optional<String> leaseOwner,
    Optional<Instant> leaseUntil,
    long revision,
    String model,
    String requestJson,
    Optional<RemoteStatus> remoteStatus,
    Optional<String> remoteSnapshotJson,
    Optional<Instant> remoteObservedAt,
    int dispatchAttempts,
    Optional<Instant> submittingSince,
    Optional<String> dispatchOutcome,
    Optional<String> dispatchDetail,
    Optional<String> reviewReason,
    Optional<Instant> reviewOpenedAt,
    Optional<String> reviewResolution,
    Optional<String> reviewResolvedBy,
    Optional<Instant> reviewResolvedAt,
    Optional<String> reviewNote,
    Optional<String> deliveryManifestJson,
    Optional<String> failureReason,
    Instant createdAt,
    Instant updatedAt,
    String account,
    Optional<Instant> phaseSince,
    Optional<Instant> tooLongReportedAt,
    Optional<String> deliveryFailure,
    Optional<Instant> deliveryFailedAt,
    Optional<Instant> cancelRequestedAt,
    Optional<String> cancelRequestedBy,
    Optional<String> cancelReason,
    Optional<Boolean> cancelDeliverRendering,
    Optional<Long> credits,
    Optional<Instant> creditsCommittedAt) {

  /**
   * The cancel request the ledger holds (V17), if one was accepted: who asked, why, and whether a
   * render Genace accepted is still delivered. Every claim that leads to a POST refuses the row
   * once it is set.
   */
  public Optional<CancelRequest> cancelRequest() {
    return cancelRequestedAt.map(
        at ->
            new CancelRequest(
                cancelReason.orElse("cancel requested"),
                cancelRequestedBy.orElse("unknown"),
                cancelDeliverRendering.orElse(null)));
  }

  /**
   * When the row entered its phase: {@code phaseSince}, or {@code updatedAt} for a row without one
   * (for a delivering row the same; for an observing row its last status change, later than the
   * phase's start). The trigger sets {@code phase_since} on every insert, so a row the application
   * wrote always has one.
   */
  public Instant inPhaseSince() {
    return phaseSince.orElse(updatedAt);
  }
}
