package com.genace.client;

/** What {@link GenerationClient} throws when Temporal answered but refused what was asked. */
public class GenerationClientException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String operationId;

  GenerationClientException(String operationId, String message, Throwable cause) {
    super(message, cause);
    this.operationId = operationId;
  }

  public String operationId() {
    return operationId;
  }
}
