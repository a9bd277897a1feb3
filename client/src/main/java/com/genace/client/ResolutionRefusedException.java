package com.genace.client;

/**
 * The workflow refused a resolution: the operation is not in review (or has ended), or the decision
 * is incomplete. Nothing changed.
 */
public final class ResolutionRefusedException extends GenerationClientException {

  private static final long serialVersionUID = 1L;

  ResolutionRefusedException(String operationId, String reason, Throwable cause) {
    super(operationId, reason, cause);
  }
}
