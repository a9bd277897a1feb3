package com.genace.testkit.simulator;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the simulator has seen since it started or was last reset.
 *
 * @param postsTotal every {@code POST /v1/generations} received, whatever its fate (refused, rate
 *     limited, failed with 503, created, or created with its response lost)
 * @param postsByOperation the same POSTs, counted per {@code metadata.operation_id} for those whose
 *     body carried a readable one; a count above 1 is a duplicate dispatch
 * @param getsTotal every {@code GET /v1/generations/{id}}, whatever its answer
 * @param jobsCreated jobs actually created (including those whose response was then lost)
 * @param responsesLost creates whose response was deliberately dropped
 */
public record SimulatorStats(
    long postsTotal,
    Map<String, Long> postsByOperation,
    long getsTotal,
    long jobsCreated,
    long responsesLost) {

  public SimulatorStats {
    postsByOperation = Map.copyOf(postsByOperation);
  }

  /** How many POSTs carried this operation id. */
  public long postsFor(String operationId) {
    return postsByOperation.getOrDefault(operationId, 0L);
  }

  /**
   * POSTs beyond the first per operation id: zero unless an operator resolved a review as not
   * submitted, or Genace answered 429 (both created nothing).
   */
  public long duplicatePosts() {
    return postsByOperation.values().stream().mapToLong(n -> Math.max(0, n - 1)).sum();
  }

  /** The wire form, as served by {@code GET /_sim/stats}. */
  public ObjectNode toJson() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.put("posts_total", postsTotal);
    ObjectNode byOperation = json.putObject("posts_by_operation");
    new TreeMap<>(postsByOperation).forEach(byOperation::put);
    json.put("gets_total", getsTotal);
    json.put("jobs_created", jobsCreated);
    json.put("responses_lost", responsesLost);
    return json;
  }
}
