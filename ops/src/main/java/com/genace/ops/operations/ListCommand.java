package com.genace.ops.operations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.client.AccountProblem;
import com.genace.controls.DispatchCircuit;
import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.ledger.ReviewEvidenceRow;
import com.genace.model.Phase;
import com.genace.ops.Environment;
import java.io.PrintWriter;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code genace ops list}: the most recent operations, from the operations table. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "List the most recently created operations from the table at DATABASE_URL.")
final class ListCommand implements Runnable {

  static final String PHASES =
      Arrays.stream(Phase.values()).map(Phase::wire).collect(Collectors.joining(", "));

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--phase",
      paramLabel = "PHASE",
      description = "Only operations in this phase: one of " + "${COMPLETION-CANDIDATES}.",
      completionCandidates = PhaseNames.class)
  String phase;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "50",
      description =
          "At most N operations (1.."
              + OperationsLedger.MAX_LIST_LIMIT
              + "; default ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "Print a JSON array instead of a table.")
  boolean json;

  ListCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    Optional<Phase> only = Optional.ofNullable(phase).map(this::parsePhase);
    if (limit < 1 || limit > OperationsLedger.MAX_LIST_LIMIT) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--limit must be between 1 and " + OperationsLedger.MAX_LIST_LIMIT);
    }
    List<OperationRow> rows;
    Optional<String> circuit = Optional.empty();
    Map<String, ReviewEvidenceRow> evidence = Map.of();
    try (LedgerAccess access = LedgerAccess.open(env)) {
      rows = access.ledger(ledger -> ledger.list(only, limit));
      if (!json) {
        circuit = circuitLine(access);
      }
      if (only.equals(Optional.of(Phase.IN_REVIEW))) {
        evidence = openReviewEvidence(access, limit);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ArrayNode array = OperationJson.JSON.createArrayNode();
      for (OperationRow row : rows) {
        ObjectNode summary = OperationJson.summary(row);
        ReviewEvidenceRow kept = evidence.get(row.operationId());
        if (kept != null) {
          summary.put("review_evidence", kept.summary());
        }
        array.add(summary);
      }
      out.println(OperationJson.pretty(array));
      return;
    }
    circuit.ifPresent(out::println);
    if (rows.isEmpty()) {
      out.println(only.map(p -> "no operations in phase " + p.wire()).orElse("no operations yet"));
      return;
    }
    TextTable table = new TextTable("OPERATION", "PHASE", "NEXT", "REMOTE JOB", "REV", "UPDATED");
    for (OperationRow row : rows) {
      table.row(
          row.operationId(),
          row.phase().wire(),
          row.nextAction().wire(),
          row.remoteJobId().orElse("-"),
          Long.toString(row.revision()),
          row.updatedAt().truncatedTo(ChronoUnit.SECONDS).toString());
    }
    table.print(out);
    printEvidence(out, rows, evidence);
  }

  /** The evidence of the reviews open now, by operation id. */
  private static Map<String, ReviewEvidenceRow> openReviewEvidence(LedgerAccess access, int limit) {
    Map<String, ReviewEvidenceRow> byOperation = new LinkedHashMap<>();
    access
        .ledger(ledger -> ledger.openReviewEvidence(limit))
        .forEach(row -> byOperation.put(row.operationId(), row));
    return byOperation;
  }

  /** Under the table of reviews: what Genace told about each, where evidence was gathered. */
  private static void printEvidence(
      PrintWriter out, List<OperationRow> rows, Map<String, ReviewEvidenceRow> evidence) {
    if (evidence.isEmpty()) {
      return;
    }
    out.println();
    out.println("evidence:");
    for (OperationRow row : rows) {
      ReviewEvidenceRow kept = evidence.get(row.operationId());
      out.println(
          "  "
              + row.operationId()
              + ": "
              + (kept == null ? "not gathered" : ReviewEvidenceText.headline(kept)));
    }
  }

  /**
   * While the dispatch circuit is open: why, since when, and how many operations wait behind it.
   */
  private static Optional<String> circuitLine(LedgerAccess access) {
    Optional<DispatchCircuit.Trip> trip =
        access.controls(controls -> new DispatchCircuit(controls, "ops").current());
    if (trip.isEmpty()) {
      return Optional.empty();
    }
    long waiting = access.ledger(ledger -> ledger.countByPhase().getOrDefault(Phase.PENDING, 0L));
    return Optional.of(
        "dispatch circuit OPEN ("
            + trip.get().problem().wire()
            + " since "
            + trip.get().pause().since().truncatedTo(ChronoUnit.SECONDS)
            + "): "
            + waiting
            + " operation(s) wait behind it; "
            + (trip.get().problem() == AccountProblem.AUTHENTICATION
                ? "it closes by itself once the key works, or with ops resume-dispatch"
                : "add credits, then ops resume-dispatch"));
  }

  private Phase parsePhase(String value) {
    try {
      return Phase.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "unknown phase '" + value + "'; accepted phases: " + PHASES);
    }
  }

  /** The phases, for the help text. */
  static final class PhaseNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Arrays.stream(Phase.values()).map(Phase::wire).iterator();
    }
  }
}
