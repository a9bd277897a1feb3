package com.genace.ops.operations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.ledger.CreditEstimate;
import com.genace.activities.ledger.SpendReport;
import com.genace.activities.ledger.SpendReport.Grouping;
import com.genace.activities.ledger.SpendReport.Line;
import com.genace.ops.ConfigurationException;
import com.genace.ops.Environment;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code genace ops spend}: the estimated credits committed with each acceptance in a window,
 * grouped by account, model or day, from the ledger's index of committed credits; and apart, what
 * the POSTs of unknown outcome may have spent ({@link SpendReport}).
 *
 * <p>Committed credits are what the accepting worker estimated then ({@code GENACE_MODEL_COSTS}).
 * Nothing was committed for a POST of unknown outcome, so it is counted at this shell's {@code
 * GENACE_MODEL_COSTS} (and {@code GENACE_DEFAULT_COST}): the output says which.
 */
@Command(
    name = "spend",
    mixinStandardHelpOptions = true,
    description = {
      "What was spent (estimated credits), from the table at DATABASE_URL: the credits committed"
          + " with each accepted render in the window, grouped; and apart, the renders whose POST"
          + " outcome is unknown (in review), counted as possibly spent at this shell's"
          + " GENACE_MODEL_COSTS."
    })
final class SpendCommand implements Runnable {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--since",
      paramLabel = "AGE",
      defaultValue = "24h",
      converter = Ages.Converter.class,
      description =
          "The window: credits committed in the last AGE (90s, 30m, 1h, 2d; default 24h).")
  Duration since;

  @Option(
      names = "--by",
      paramLabel = "GROUP",
      defaultValue = "account",
      description = "account (default), model, or day (UTC).")
  String by;

  @Option(names = "--json", description = "Print one JSON object instead of tables.")
  boolean json;

  SpendCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    Grouping grouping = grouping();
    if (since.isZero()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--since must be positive");
    }
    CreditEstimate estimate = estimate(env);
    List<Line> committed;
    List<Line> possibly;
    try (LedgerAccess access = LedgerAccess.open(env)) {
      committed = access.ledger(ledger -> ledger.spend().committed(since, grouping));
      possibly = access.ledger(ledger -> ledger.spend().possiblySpent(since, grouping, estimate));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectNode result = OperationJson.JSON.createObjectNode();
      result.put("since", Ages.format(since));
      result.put("since_seconds", since.getSeconds());
      result.put("by", grouping.wire());
      result.set("committed", section(committed, grouping));
      ObjectNode unknown = section(possibly, grouping);
      unknown.put("estimated_at", describe(estimate));
      result.set("possibly_spent", unknown);
      out.println(OperationJson.pretty(result));
      return;
    }
    out.println(
        "Credits committed in the last "
            + Ages.format(since)
            + ", by "
            + grouping.wire()
            + " (each render's estimate when it was accepted):");
    print(out, committed, grouping);
    out.println();
    out.println("Possibly spent (POST outcome unknown, in review; at " + describe(estimate) + "):");
    print(out, possibly, grouping);
  }

  private Grouping grouping() {
    try {
      return Grouping.valueOf(by.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--by must be account, model or day, not '" + by + "'");
    }
  }

  /** The estimate of this shell's environment, as a worker reads it. */
  static CreditEstimate estimate(Environment env) {
    Map<String, Long> costs;
    long defaultCost;
    try {
      costs = env.get("GENACE_MODEL_COSTS").map(AllowancePolicy::parseCosts).orElse(Map.of());
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException("GENACE_MODEL_COSTS: " + e.getMessage());
    }
    try {
      defaultCost =
          env.get("GENACE_DEFAULT_COST")
              .map(String::trim)
              .map(Long::parseLong)
              .orElse(CreditEstimate.DEFAULT.defaultCost());
      return new CreditEstimate(costs, defaultCost);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(
          "GENACE_DEFAULT_COST / GENACE_MODEL_COSTS: " + e.getMessage());
    }
  }

  private static String describe(CreditEstimate estimate) {
    String listed =
        estimate.modelCosts().isEmpty()
            ? "GENACE_MODEL_COSTS not set here"
            : "GENACE_MODEL_COSTS=" + costsText(estimate);
    return listed + ", other models " + estimate.defaultCost();
  }

  private static String costsText(CreditEstimate estimate) {
    StringBuilder text = new StringBuilder();
    new java.util.TreeMap<>(estimate.modelCosts())
        .forEach(
            (model, credits) ->
                text.append(text.isEmpty() ? "" : ",").append(model + "=" + credits));
    return text.toString();
  }

  private static ObjectNode section(List<Line> lines, Grouping grouping) {
    ObjectNode section = OperationJson.JSON.createObjectNode();
    section.put("credits", lines.stream().mapToLong(Line::credits).sum());
    section.put("operations", lines.stream().mapToLong(Line::operations).sum());
    ArrayNode groups = section.putArray("groups");
    for (Line line : lines) {
      groups
          .addObject()
          .put(grouping.wire(), line.key())
          .put("credits", line.credits())
          .put("operations", line.operations());
    }
    return section;
  }

  private static void print(PrintWriter out, List<Line> lines, Grouping grouping) {
    if (lines.isEmpty()) {
      out.println("none");
      return;
    }
    TextTable table =
        new TextTable(grouping.wire().toUpperCase(Locale.ROOT), "CREDITS", "OPERATIONS");
    for (Line line : lines) {
      table.row(line.key(), Long.toString(line.credits()), Long.toString(line.operations()));
    }
    table.row(
        "total",
        Long.toString(lines.stream().mapToLong(Line::credits).sum()),
        Long.toString(lines.stream().mapToLong(Line::operations).sum()));
    table.print(out);
  }
}
