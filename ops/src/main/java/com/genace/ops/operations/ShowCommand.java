package com.genace.ops.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.ReviewEvidenceRow;
import com.genace.activities.ledger.TransitionRow;
import com.genace.client.connection.TemporalSettings;
import com.genace.client.model.Phase;
import com.genace.ops.Environment;
import com.genace.worker.temporal.TemporalConnection;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code genace ops show ID}: one operation and its history of transitions. */
@Command(
    name = "show",
    mixinStandardHelpOptions = true,
    description = {
      "Show one operation from the table at DATABASE_URL, and its history of transitions.",
      "Denied writes (a worker whose lease was no longer valid) are listed and marked DENIED."
    })
final class ShowCommand implements Runnable {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "The operation id.")
  String operationId;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  ShowCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    OperationRow row;
    List<TransitionRow> history;
    Optional<ReviewEvidenceRow> evidence;
    try (LedgerAccess access = LedgerAccess.open(env)) {
      row = access.ledger(ledger -> ledger.get(operationId));
      history = access.ledger(ledger -> ledger.history(operationId));
      evidence = access.ledger(ledger -> ledger.reviewEvidence(operationId));
    }
    WorkflowAnswers workflow = askWorkflow(row);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectNode full = OperationJson.full(row, history);
      full.put("end_reason", EndReason.of(row, history).orElse(null));
      full.put("workflow", workflow.state());
      evidence.ifPresent(e -> full.set("review_evidence", OperationJson.parse(e.evidenceJson())));
      out.println(OperationJson.pretty(full));
      return;
    }
    printOperation(out, row);
    field(out, "why", EndReason.of(row, history).orElse("-"));
    field(out, "workflow", workflow.state());
    printEvidence(out, row, evidence, workflow);
    out.println();
    out.println("history (" + history.size() + " entries, oldest first):");
    TextTable table = new TextTable("AT", "REV", "OWNER", "EVENT", "FROM -> TO", "DETAILS");
    for (TransitionRow transition : history) {
      table.row(
          time(transition.at()),
          Long.toString(transition.revision()),
          transition.owner().orElse("-"),
          transition.accepted() ? transition.event() : transition.event() + " DENIED",
          transition.fromPhase().orElse("-") + " -> " + transition.toPhase().orElse("-"),
          "{}".equals(transition.detailsJson())
              ? ""
              : OperationJson.shown(transition.detailsJson()));
    }
    table.print(out);
  }

  /**
   * What the workflow of an operation that has not ended says: whether it can run at all (a
   * workflow task that keeps failing, docs/operations.md "The workflow cannot run"), and, in
   * review, the resolutions it refused (they live in the workflow, not the table).
   *
   * @param state {@code running}, {@code ended}, {@code the workflow cannot run: <why>}, or why
   *     Temporal could not be asked
   */
  private record WorkflowAnswers(String state, Optional<List<String>> refused) {}

  private WorkflowAnswers askWorkflow(OperationRow row) {
    if (row.phase().isTerminal()) {
      return new WorkflowAnswers("ended", Optional.empty());
    }
    try (TemporalConnection temporal =
        TemporalConnection.open(TemporalSettings.fromEnvironment(env.variables()))) {
      Optional<String> failure = temporal.workflowTaskFailure(row.operationId());
      if (failure.isPresent()) {
        return new WorkflowAnswers("the workflow cannot run: " + failure.get(), Optional.empty());
      }
      Optional<List<String>> refused =
          row.phase() == Phase.IN_REVIEW
              ? Optional.of(
                  temporal.generationClient().describe(row.operationId()).rejectedResolutions())
              : Optional.empty();
      return new WorkflowAnswers("running", refused);
    } catch (RuntimeException unavailable) {
      return new WorkflowAnswers(
          "unknown (the workflow could not be asked: " + unavailable.getMessage() + ")",
          Optional.empty());
    }
  }

  private static void printOperation(PrintWriter out, OperationRow row) {
    field(out, "operation", row.operationId());
    field(out, "phase", row.phase().wire() + " (next action: " + row.nextAction().wire() + ")");
    field(out, "remote job", row.remoteJobId().orElse("-"));
    field(
        out,
        "lease",
        row.leaseOwner()
            .map(owner -> owner + " until " + row.leaseUntil().map(ShowCommand::time).orElse("?"))
            .orElse("none"));
    field(out, "revision", Long.toString(row.revision()));
    field(out, "model", row.model());
    field(out, "account", row.account());
    field(out, "request", OperationJson.shown(row.requestJson()));
    field(out, "created", time(row.createdAt()) + "   updated " + time(row.updatedAt()));
    field(
        out,
        "in phase",
        "since "
            + time(row.inPhaseSince())
            + row.tooLongReportedAt()
                .map(t -> "; reported waiting too long at " + time(t))
                .orElse(""));
    field(
        out,
        "dispatch",
        row.dispatchAttempts()
            + " attempt(s)"
            + row.dispatchOutcome().map(o -> "; last outcome " + o).orElse("")
            + row.dispatchDetail().map(d -> " (" + d + ")").orElse("")
            + row.submittingSince().map(t -> "; submitting since " + time(t)).orElse(""));
    field(out, "credits", credits(row));
    field(
        out,
        "snapshot",
        row.remoteStatus()
            .map(
                status ->
                    status.wire()
                        + row.remoteObservedAt().map(t -> " at " + time(t)).orElse("")
                        + row.remoteSnapshotJson()
                            .map(s -> ": " + OperationJson.shown(s))
                            .orElse(""))
            .orElse("-"));
    field(out, "review", review(row));
    printDelivery(out, row);
    field(out, "failure", row.failureReason().orElse("-"));
    field(
        out,
        "cancel",
        row.cancelRequestedAt()
            .map(
                at ->
                    "requested at "
                        + time(at)
                        + " by "
                        + row.cancelRequestedBy().orElse("?")
                        + ": "
                        + row.cancelReason().orElse("?")
                        + (row.cancelDeliverRendering().orElse(false)
                            ? " (deliver the rendering)"
                            : ""))
            .orElse("-"));
  }

  /**
   * The evidence Genace gave when the review opened, and, while it is open, the resolutions the
   * workflow refused.
   */
  private static void printEvidence(
      PrintWriter out,
      OperationRow row,
      Optional<ReviewEvidenceRow> kept,
      WorkflowAnswers workflow) {
    if (kept.isPresent()) {
      field(out, "evidence", ReviewEvidenceText.headline(kept.get()));
      ReviewEvidenceText.jobs(kept.get()).forEach(line -> field(out, "", line));
    }
    if (row.phase() != Phase.IN_REVIEW) {
      return;
    }
    if (workflow.refused().isEmpty()) {
      field(out, "refused", "unknown (see workflow)");
      return;
    }
    List<String> refused = workflow.refused().get();
    field(out, "refused", refused.isEmpty() ? "none" : refused.size() + " resolution(s)");
    refused.forEach(refusal -> field(out, "", refusal));
  }

  /**
   * One line per delivered object: where it is, its size and its SHA-256; and why the last failed
   * delivery attempt failed, if one did (a checksum that keeps failing says so here).
   */
  private static void printDelivery(PrintWriter out, OperationRow row) {
    Optional<String> manifest = row.deliveryManifestJson();
    if (manifest.isEmpty()) {
      field(out, "delivery", row.deliveryFailure().isPresent() ? "not yet" : "-");
      printDeliveryFailure(out, row);
      return;
    }
    JsonNode artifacts = OperationJson.parse(manifest.get()).path("artifacts");
    field(out, "delivery", artifacts.size() + " artifact(s)");
    for (JsonNode artifact : artifacts) {
      field(
          out,
          "",
          artifact.path("uri").asText()
              + "  "
              + artifact.path("bytes").asLong()
              + " bytes  sha256 "
              + artifact.path("sha256").asText());
    }
    printDeliveryFailure(out, row);
  }

  private static void printDeliveryFailure(PrintWriter out, OperationRow row) {
    row.deliveryFailure()
        .ifPresent(
            failure ->
                field(
                    out,
                    "",
                    "last failed attempt"
                        + row.deliveryFailedAt().map(t -> " at " + time(t)).orElse("")
                        + ": "
                        + failure));
  }

  private static String review(OperationRow row) {
    if (row.reviewReason().isEmpty() && row.reviewResolution().isEmpty()) {
      return "-";
    }
    StringBuilder text = new StringBuilder(row.reviewReason().orElse("?"));
    row.reviewOpenedAt().ifPresent(t -> text.append(", opened ").append(time(t)));
    Optional<String> resolution = row.reviewResolution();
    if (resolution.isPresent()) {
      text.append("; resolved ").append(resolution.get());
      row.reviewResolvedBy().ifPresent(by -> text.append(" by ").append(by));
      row.reviewResolvedAt().ifPresent(t -> text.append(" at ").append(time(t)));
      row.reviewNote().ifPresent(note -> text.append(": ").append(note));
    } else {
      text.append("; waiting for an operator (./genace ops resolve ").append(row.operationId());
      text.append(" ...)");
    }
    return text.toString();
  }

  /**
   * The estimated credits committed with the acceptance (V18), or, for a POST of unknown outcome in
   * review, that it may have spent (as {@code ops spend} counts it).
   */
  static String credits(OperationRow row) {
    if (row.creditsCommittedAt().isPresent()) {
      return row.credits().map(c -> c + " (estimated)").orElse("?")
          + ", committed "
          + time(row.creditsCommittedAt().get())
          + " with the acceptance";
    }
    if (row.phase() == com.genace.client.model.Phase.IN_REVIEW
        && row.dispatchOutcome().filter("unknown"::equals).isPresent()) {
      return "possibly spent: the POST's outcome is unknown (see ops spend)";
    }
    return "none committed";
  }

  private static void field(PrintWriter out, String name, String value) {
    out.printf("%-11s %s%n", name, value);
  }

  private static String time(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
