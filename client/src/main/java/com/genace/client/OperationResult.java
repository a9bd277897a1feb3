package com.genace.client;

import com.genace.client.model.Phase;
import java.util.List;

/**
 * How an operation ended: {@code delivered}, {@code failed} or {@code abandoned}, with what it
 * delivered (each artifact's key, URI, size, SHA-256 and content type; empty unless {@code
 * delivered}).
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
