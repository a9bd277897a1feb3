package com.genace.ops.operations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.genace.AccountProblem;
import com.genace.activities.ledger.ListOrder;
import com.genace.activities.ledger.OperationPage;
import com.genace.activities.ledger.OperationQuery;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.ReviewEvidenceRow;
import com.genace.client.model.Phase;
import com.genace.ops.Environment;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
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

/**
 * {@code genace ops list}: operations from the operations table, newest (or oldest) first, by page;
 * a last line says when more follow and how to see them.
 */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = {
      "List operations from the table at DATABASE_URL, newest first, a page at a time.",
      "AGE is the time since the operation was created; REASON says why an operation failed, or"
          + " what its review is about and for how long it has waited."
    })
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

  @Option(
      names = "--account",
      paramLabel = "ACCOUNT",
      description = "Only operations of this account.")
  String account;

  @Option(
      names = "--older-than",
      paramLabel = "AGE",
      converter = Ages.Converter.class,
      description = "Only operations created at least AGE ago: 90s, 30m, 1h, 2d.")
  Duration olderThan = Duration.ZERO;

  @Option(
      names = "--after",
      paramLabel = "ID",
      description = "The next page: operations after ID in this order (the last one shown).")
  String after;

  @Option(
      names = "--sort",
      paramLabel = "ORDER",
      defaultValue = "newest",
      description = "newest (default) or oldest first, by creation time.")
  String sort;

  @Option(
      names = "--json",
      description =
          "Print a JSON array instead of a table (standard error says when more rows follow).")
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
    OperationQuery query =
        new OperationQuery(
            only,
            Optional.ofNullable(account),
            olderThan,
            Optional.ofNullable(after),
            parseOrder(sort),
            limit);
    OperationPage page;
    Optional<String> circuit = Optional.empty();
    Instant now;
    Map<String, ReviewEvidenceRow> evidence = Map.of();
    try (LedgerAccess access = LedgerAccess.open(env)) {
      page = access.ledger(ledger -> ledger.list(query));
      now = Instant.now();
      if (!json) {
        circuit = circuitLine(access);
      }
      evidence = reviewEvidence(access, page.rows());
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ArrayNode array = OperationJson.JSON.createArrayNode();
      for (OperationRow row : page.rows()) {
        ObjectNode summary = OperationJson.summary(row);
        ReviewEvidenceRow kept = evidence.get(row.operationId());
        if (kept != null) {
          summary.put("review_evidence", kept.summary());
        }
        array.add(summary);
      }
      out.println(OperationJson.pretty(array));
      if (page.more()) {
        spec.commandLine().getErr().println(moreLine(page));
      }
      return;
    }
    circuit.ifPresent(out::println);
    if (page.rows().isEmpty()) {
      out.println(emptyLine());
      return;
    }
    TextTable table =
        new TextTable(
            "OPERATION",
            "PHASE",
            "ACCOUNT",
            "NEXT",
            "REMOTE JOB",
            "REV",
            "AGE",
            "UPDATED",
            "REASON");
    for (OperationRow row : page.rows()) {
      table.row(
          row.operationId(),
          row.phase().wire(),
          row.account(),
          row.nextAction().wire(),
          row.remoteJobId().orElse("-"),
          Long.toString(row.revision()),
          Ages.format(Duration.between(row.createdAt(), now)),
          row.updatedAt().truncatedTo(ChronoUnit.SECONDS).toString(),
          reason(row, now));
    }
    table.print(out);
    printEvidence(out, page.rows(), evidence);
    if (page.more()) {
      out.println(moreLine(page));
    }
  }

  /** Why a failed operation failed; what an open review is about and how long it has waited. */
  static String reason(OperationRow row, Instant now) {
    if (row.phase() == Phase.FAILED || row.phase() == Phase.ABANDONED) {
      return row.failureReason().orElse("-");
    }
    if (row.phase() == Phase.IN_REVIEW) {
      return row.reviewReason().orElse("-")
          + row.reviewOpenedAt()
              .map(opened -> ", waiting " + Ages.format(Duration.between(opened, now)))
              .orElse("");
    }
    return "-";
  }

  /** The command line that shows the next page: the same options, after the last row. */
  private String moreLine(OperationPage page) {
    List<OperationRow> rows = page.rows();
    StringBuilder next = new StringBuilder("more operations follow: ./genace ops list");
    if (phase != null) {
      next.append(" --phase ").append(phase);
    }
    if (account != null) {
      next.append(" --account ").append(account);
    }
    if (!olderThan.isZero()) {
      next.append(" --older-than ").append(olderThan.toSeconds()).append('s');
    }
    if (!"newest".equals(sort)) {
      next.append(" --sort ").append(sort);
    }
    next.append(" --limit ").append(limit);
    next.append(" --after ").append(rows.get(rows.size() - 1).operationId());
    return next.toString();
  }

  private String emptyLine() {
    boolean others = account != null || !olderThan.isZero() || after != null;
    if (others) {
      return "no operations match";
    }
    return phase == null ? "no operations yet" : "no operations in phase " + phase;
  }

  private ListOrder parseOrder(String value) {
    return switch (value) {
      case "newest" -> ListOrder.NEWEST_FIRST;
      case "oldest" -> ListOrder.OLDEST_FIRST;
      default ->
          throw new CommandLine.ParameterException(
              spec.commandLine(), "unknown order '" + value + "'; use newest or oldest");
    };
  }

  /** The evidence gathered for the reviews among {@code rows}, by operation id. */
  private static Map<String, ReviewEvidenceRow> reviewEvidence(
      LedgerAccess access, List<OperationRow> rows) {
    Map<String, ReviewEvidenceRow> byOperation = new LinkedHashMap<>();
    for (OperationRow row : rows) {
      if (row.phase() == Phase.IN_REVIEW) {
        access
            .ledger(ledger -> ledger.reviewEvidence(row.operationId()))
            .ifPresent(kept -> byOperation.put(row.operationId(), kept));
      }
    }
    return byOperation;
  }

  /** Under the table: what Genace told about each review shown, where evidence was gathered. */
  private static void printEvidence(
      PrintWriter out, List<OperationRow> rows, Map<String, ReviewEvidenceRow> evidence) {
    if (evidence.isEmpty()) {
      return;
    }
    List<OperationRow> reviews = rows.stream().filter(r -> r.phase() == Phase.IN_REVIEW).toList();
    out.println();
    out.println("evidence:");
    for (OperationRow row : reviews) {
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
    long waiting = access.ledger(ledger -> ledger.countUnfinished(Phase.PENDING));
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
