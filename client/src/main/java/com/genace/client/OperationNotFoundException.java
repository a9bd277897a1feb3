package com.genace.client;

/**
 * No operation with this id was ever started (or its history is past the namespace's retention).
 */
public final class OperationNotFoundException extends GenerationClientException {

  private static final long serialVersionUID = 1L;

  OperationNotFoundException(String operationId, Throwable cause) {
    super(operationId, "no operation " + operationId + " was started", cause);
  }
}
