package com.genace.client;

import com.genace.client.model.Phase;
import com.genace.client.review.ReviewCase;
import java.util.List;

/**
 * What the workflow knows about its operation, for queries: phase, remote job id, the last remote
 * status seen, the review case (if any, with its evidence), the resolutions it refused (each with
 * its reason) and, once delivered, the delivered artifacts (empty before). {@code awaitsOperator}:
 * in review, its evidence gathered and no resolution being applied (a review that settles itself
 * never waits for one). {@code credits}: the estimated credits committed with Genace's acceptance
 * of the POST (what {@code ops spend} sums), null before it, for a job found by a review (the
 * ledger has those: {@code ops show}), and from workers before it existed.
 */
public record OperationView(
    String operationId,
    Phase phase,
    String remoteJobId,
    String lastRemoteStatus,
    int dispatchAttempts,
    ReviewCase review,
    List<String> rejectedResolutions,
    List<DeliveredArtifact> artifacts,
    boolean awaitsOperator,
    Long credits) {

  /** Without credits: as before they were reported. */
  public OperationView(
      String operationId,
      Phase phase,
      String remoteJobId,
      String lastRemoteStatus,
      int dispatchAttempts,
      ReviewCase review,
      List<String> rejectedResolutions,
      List<DeliveredArtifact> artifacts,
      boolean awaitsOperator) {
    this(
        operationId,
        phase,
        remoteJobId,
        lastRemoteStatus,
        dispatchAttempts,
        review,
        rejectedResolutions,
        artifacts,
        awaitsOperator,
        null);
  }

  public OperationView {
    artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
  }
}
