package com.genace.workflows;

import com.genace.delivery.DeliveredArtifact;
import com.genace.model.Phase;
import com.genace.review.ReviewCase;
import java.util.List;

/**
 * What the workflow knows about its operation, for queries: phase, remote job id, the last remote
 * status seen, the review case (if any, with its evidence), the resolutions it refused (each with
 * its reason) and, once delivered, the delivered artifacts (empty before). {@code awaitsOperator}:
 * in review, its evidence gathered and no resolution being applied (a review that settles itself
 * never waits for one).
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
    boolean awaitsOperator) {

  public OperationView {
    artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
  }
}
