package com.genace.activities.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;

/**
 * The estimated credits of one render per model ({@code GENACE_MODEL_COSTS}), and of a model not
 * listed ({@code GENACE_DEFAULT_COST}): what the ledger writes as an operation's {@code credits}
 * when its acceptance is recorded, and what {@code ops spend} counts for an operation whose POST
 * outcome is unknown. Genace's answer to a POST carries no cost, so the estimate is all there is.
 *
 * <p>The statements take it as {@link #json()} and {@link #defaultCost()}, and read the cost of the
 * row's own model with {@link #SQL_COST}: the callers need not know the model.
 */
public record CreditEstimate(Map<String, Long> modelCosts, long defaultCost) {

  /** What an unconfigured worker estimates: 1 credit a render, whatever the model. */
  public static final CreditEstimate DEFAULT = new CreditEstimate(Map.of(), 1);

  /**
   * The cost of row {@code o}'s model, given the arguments {@code a.costs} and {@code
   * a.default_cost}.
   */
  static final String SQL_COST = "coalesce((a.costs ->> o.model)::bigint, a.default_cost)";

  private static final ObjectMapper JSON = new ObjectMapper();

  public CreditEstimate {
    if (defaultCost < 0 || modelCosts.values().stream().anyMatch(c -> c < 0)) {
      throw new IllegalArgumentException("model costs must not be negative");
    }
    modelCosts = Map.copyOf(modelCosts);
  }

  public long costOf(String model) {
    return modelCosts.getOrDefault(model, defaultCost);
  }

  /** Whether {@code model} has a cost of its own (else it costs {@link #defaultCost}). */
  public boolean lists(String model) {
    return modelCosts.containsKey(model);
  }

  /** {@code {"model": credits, ...}}, as the statements take it. */
  String json() {
    ObjectNode node = JSON.createObjectNode();
    new TreeMap<>(modelCosts).forEach(node::put);
    return node.toString();
  }
}
