package com.genace.activities.allowance;

import com.genace.activities.ledger.CreditEstimate;
import java.time.Duration;
import java.util.Map;

/**
 * The local spending allowance: credits per rolling window and a cap on dispatches in flight, both
 * fleet-wide ({@code global}) and per account. {@link #UNLIMITED} when nothing is configured.
 *
 * @param modelCosts estimated credits of one render per model; others cost {@code defaultCost}
 */
public record AllowancePolicy(
    Duration window,
    long globalCredits,
    long accountCredits,
    int globalMaxInFlight,
    int accountMaxInFlight,
    Map<String, Long> modelCosts,
    long defaultCost) {

  public static final Duration DEFAULT_WINDOW = Duration.ofHours(1);
  public static final AllowancePolicy UNLIMITED =
      new AllowancePolicy(
          DEFAULT_WINDOW,
          Long.MAX_VALUE,
          Long.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Map.of(),
          1);

  public AllowancePolicy {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("allowance window must be positive");
    }
    if (globalCredits < 0
        || accountCredits < 0
        || globalMaxInFlight < 1
        || accountMaxInFlight < 1) {
      throw new IllegalArgumentException("allowance limits must be positive");
    }
    if (defaultCost < 0 || modelCosts.values().stream().anyMatch(c -> c < 0)) {
      throw new IllegalArgumentException("model costs must not be negative");
    }
    modelCosts = Map.copyOf(modelCosts);
  }

  public long costOf(String model) {
    return estimate().costOf(model);
  }

  /** The costs alone: what the ledger records as an accepted operation's credits. */
  public CreditEstimate estimate() {
    return new CreditEstimate(modelCosts, defaultCost);
  }

  /**
   * Parses {@code model=credits,model=credits}.
   *
   * @throws IllegalArgumentException naming the malformed entry
   */
  public static Map<String, Long> parseCosts(String text) {
    Map<String, Long> costs = new java.util.HashMap<>();
    for (String entry : text.split(",")) {
      String trimmed = entry.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      int eq = trimmed.indexOf('=');
      try {
        if (eq < 1) {
          throw new NumberFormatException();
        }
        costs.put(
            trimmed.substring(0, eq).trim(), Long.parseLong(trimmed.substring(eq + 1).trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("expected model=credits, got '" + trimmed + "'");
      }
    }
    return costs;
  }
}
