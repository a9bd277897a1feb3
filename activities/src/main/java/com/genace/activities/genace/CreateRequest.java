package com.genace.activities.genace;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * What to render. Sent as {@code {"model": ..., "input": {...}, "metadata": {"operation_id":
 * ...}}}; the operation id lets an operator find the remote job when the response was lost.
 *
 * @param model non-blank model name
 * @param input model input; copied, so later changes by the caller have no effect
 * @param operationId non-blank id of the generation operation that owns this render
 */
public record CreateRequest(String model, ObjectNode input, String operationId) {
  public CreateRequest {
    Objects.requireNonNull(input, "input");
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("model must not be blank");
    }
    if (operationId == null || operationId.isBlank()) {
      throw new IllegalArgumentException("operationId must not be blank");
    }
    input = input.deepCopy();
  }

  @Override
  public ObjectNode input() {
    return input.deepCopy();
  }
}
