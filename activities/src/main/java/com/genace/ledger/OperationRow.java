package com.genace.ledger;

import com.genace.model.NextAction;
import com.genace.model.Phase;
import com.genace.model.RemoteStatus;
import java.time.Instant;
import java.util.Optional;

/** One row of {@code app_generation_operations}, as read. JSON columns are kept as text. */
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
    String account) {}
