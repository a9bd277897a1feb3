package com.genace.workflows;

import com.genace.client.GenerationRequest;
import com.genace.client.RequestDifferences;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Whether a client may join a running operation: only with the request the operation was started
 * with. Checked by the workflow itself ({@code join}'s validator), so that a client in any language
 * meets the same rule; a refusal records nothing in the history.
 *
 * <p>The refusal is a plain exception with the reason, as the other validators' are: Temporal Java
 * SDK 1.38.0 drops the type and details of an {@code ApplicationFailure} thrown by a validator
 * (sdk-java issue 2875), so clients read the message, whose words are documented (docs/clients.md):
 * {@code operation <id> was started with another request (...)}.
 */
final class JoinCheck {

  private JoinCheck() {}

  /**
   * @param own the request this run was started with
   * @param requested the joining client's request
   * @throws IllegalArgumentException for a request that breaks the contract ({@code invalid start
   *     input: ...}) or another request ({@link RequestDifferences#conflict})
   */
  static void requireSameRequest(GenerationRequest own, GenerationRequest requested) {
    if (requested == null) {
      throw new IllegalArgumentException(
          "invalid start input: it is missing (a GenerationRequest object)");
    }
    try {
      requested.validate(GenerationRequest.MAX_INPUT_BYTES_CEILING);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid start input: " + e.getMessage(), e);
    }
    if (own == null) {
      // A run without its input fails at once: there is nothing to join.
      throw new IllegalArgumentException(
          "operation " + requested.operationId() + " was started without a valid request");
    }
    List<String> differences = new ArrayList<>();
    if (!Objects.equals(own.operationId(), requested.operationId())) {
      differences.add(
          "operation id " + own.operationId() + " was started, not " + requested.operationId());
    }
    differences.addAll(RequestDifferences.between(own, requested));
    if (!differences.isEmpty()) {
      throw new IllegalArgumentException(
          RequestDifferences.conflict(own.operationId(), differences));
    }
  }
}
