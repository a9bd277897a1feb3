package com.genace.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Whether two requests for one operation id ask for the same render: the same model, the same
 * account and the same input compared as JSON values (key order and white space do not matter). The
 * dispatch timeout is an option of the run, not part of what is rendered. The client compares a
 * start with the running workflow's; the ledger's registration, with the row of that id.
 */
public final class RequestDifferences {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RequestDifferences() {}

  /** What differs between the existing request and the requested one; empty when they agree. */
  public static List<String> between(GenerationRequest existing, GenerationRequest requested) {
    List<String> differences = new ArrayList<>();
    if (!Objects.equals(existing.model(), requested.model())) {
      differences.add("model " + existing.model() + " was started, not " + requested.model());
    }
    if (!existing.accountOrDefault().equals(requested.accountOrDefault())) {
      differences.add(
          "account "
              + existing.accountOrDefault()
              + " was started, not "
              + requested.accountOrDefault());
    }
    if (!tree(existing.inputJson()).equals(tree(requested.inputJson()))) {
      differences.add("the input differs");
    }
    return differences;
  }

  /**
   * The one refusal of a reused id, wherever it is found (the {@code join} update's validator, the
   * ledger's registration, the Java client for an operation that has ended).
   */
  public static String conflict(String operationId, List<String> differences) {
    return "operation "
        + operationId
        + " was started with another request ("
        + String.join("; ", differences)
        + "); use a new operation id for a new request";
  }

  private static JsonNode tree(String json) {
    try {
      return JSON.readTree(json == null ? "null" : json);
    } catch (JsonProcessingException e) {
      // Only requests that passed validation are compared; an unreadable one differs from any.
      return JSON.getNodeFactory().textNode(json);
    }
  }
}
