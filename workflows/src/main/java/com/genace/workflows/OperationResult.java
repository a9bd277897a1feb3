package com.genace.workflows;

import com.genace.delivery.DeliveredArtifact;
import com.genace.model.Phase;
import java.util.List;

/**
 * How an operation ended: {@code delivered}, {@code failed} or {@code abandoned}, with what it
 * delivered (each artifact's key, URI, size, SHA-256 and content type; empty unless {@code
 * delivered}).
 *
 * <p>{@code artifacts} is null in results of workflows that ended before the field existed; the
 * canonical constructor makes it an empty list, so readers never see null.
 */
public record OperationResult(
    String operationId,
    Phase phase,
    String remoteJobId,
    String detail,
    List<DeliveredArtifact> artifacts) {

  public OperationResult {
    artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
  }
}
