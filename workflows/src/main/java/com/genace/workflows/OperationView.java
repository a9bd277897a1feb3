package com.genace.workflows;

import com.genace.delivery.DeliveredArtifact;
import com.genace.model.Phase;
import com.genace.review.ReviewCase;
import java.util.List;

/**
 * What the workflow knows about its operation, for queries: phase, remote job id, the last remote
 * status seen, the review case (if any), the resolutions it refused and, once delivered, the
 * delivered artifacts (empty before).
 */
public record OperationView(
    String operationId,
    Phase phase,
    String remoteJobId,
    String lastRemoteStatus,
    int dispatchAttempts,
    ReviewCase review,
    List<String> rejectedResolutions,
    List<DeliveredArtifact> artifacts) {

  public OperationView {
    artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
  }
}
