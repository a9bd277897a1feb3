package com.genace.client;

/**
 * The workflow refused a cancel request for a reason other than having ended (its validator found
 * the request incomplete). Nothing changed.
 */
public final class CancellationRefusedException extends GenerationClientException {

  private static final long serialVersionUID = 1L;

  CancellationRefusedException(String operationId, String reason, Throwable cause) {
    super(operationId, reason, cause);
  }
}
