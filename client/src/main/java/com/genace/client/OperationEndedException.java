package com.genace.client;

/** The operation has already ended: a cancel (or resolution) cannot change it. Nothing changed. */
public final class OperationEndedException extends GenerationClientException {

  private static final long serialVersionUID = 1L;

  OperationEndedException(String operationId, String reason, Throwable cause) {
    super(operationId, reason, cause);
  }
}
