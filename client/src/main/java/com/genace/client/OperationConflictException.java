package com.genace.client;

import java.util.List;

/**
 * An operation id was reused with a different request. Like an idempotency key reused with other
 * parameters, it is refused: the existing operation goes on unchanged and nothing else is started.
 */
public final class OperationConflictException extends GenerationClientException {

  private static final long serialVersionUID = 1L;

  private final List<String> differences;

  OperationConflictException(String operationId, List<String> differences) {
    super(operationId, RequestDifferences.conflict(operationId, differences), null);
    this.differences = List.copyOf(differences);
  }

  /** What differs, one entry per field ({@code model}, {@code input}, {@code account}). */
  public List<String> differences() {
    return differences;
  }
}
