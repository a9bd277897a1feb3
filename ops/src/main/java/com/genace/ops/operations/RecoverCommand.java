package com.genace.ops.operations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.delivery.ArtifactLocation;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.ArtifactStores;
import com.genace.activities.lifecycle.RestoreRecovery;
import com.genace.activities.recovery.TemporalHistory;
import com.genace.client.connection.TemporalSettings;
import com.genace.ops.Environment;
import com.genace.worker.temporal.TemporalConnection;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code genace ops recover --since TIME}: after a restore of the ledger or of Temporal, brings the
 * two stores back to one truth ({@link RestoreRecovery}): rows the ledger lost are re-created from
 * Temporal's history, rows behind their history move forward, rows whose workflow Temporal lost
 * observe the job they hold; what needs a person is listed. Dry run unless {@code --apply}.
 */
@Command(
    name = "recover",
    mixinStandardHelpOptions = true,
    description = {
      "After a restore of either store (the ledger from a backup, or Temporal's history lost):"
          + " walks Temporal's visibility for every generation workflow started or closed since"
          + " TIME and the ledger's unfinished rows, re-creates rows the ledger lost, moves rows"
          + " behind their history forward (delivered as a run delivered, observing a job a run"
          + " holds), observes the jobs of rows whose workflow Temporal lost, and lists what needs"
          + " a person. Never sends a POST.",
      "A dry run (what it would do) unless --apply. Idempotent: run it again until it reports"
          + " nothing to repair.",
      "Needs DATABASE_URL, Temporal (TEMPORAL_ADDRESS) and the artifact store the workers use"
          + " (GENACE_ARTIFACT_URL or GENACE_ARTIFACT_DIR), whose artifacts a delivered repair checks."
    })
final class RecoverCommand implements java.util.concurrent.Callable<Integer> {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--since",
      required = true,
      paramLabel = "TIME",
      description =
          "The backup's timestamp (ISO-8601, such as 2026-12-06T20:00:00Z), or an age before now"
              + " (90m, 2h, 1d).")
  String since;

  @Option(names = "--apply", description = "Write the repairs (default: a dry run).")
  boolean apply;

  @Option(names = "--json", description = "Print one JSON object instead of lines.")
  boolean json;

  RecoverCommand(Environment env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    Instant from = parseSince();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    RestoreRecovery.Report report;
    try (LedgerAccess access = LedgerAccess.open(env);
        TemporalConnection temporal =
            TemporalConnection.open(TemporalSettings.fromEnvironment(env.variables()));
        ArtifactStore store =
            ArtifactStores.open(
                ArtifactLocation.fromEnvironment(env.variables()), env.variables())) {
      report =
          access.ledger(
              ledger ->
                  new RestoreRecovery(
                          ledger,
                          temporal.workflowClient(),
                          new TemporalHistory(temporal.workflowClient()),
                          store,
                          "ops-recover",
                          apply)
                      .run(from, line -> err.println("recover: " + line)));
    }
    long needPerson = report.steps().stream().filter(RestoreRecovery.Step::needsPerson).count();
    Map<String, Integer> byAction = new TreeMap<>();
    report.steps().forEach(step -> byAction.merge(step.action(), 1, Integer::sum));
    if (json) {
      ObjectNode result = OperationJson.JSON.createObjectNode();
      result.put("since", from.toString());
      result.put("applied", apply);
      result.put("workflows_listed", report.workflowsListed());
      result.put("unfinished_rows_checked", report.rowsChecked());
      ObjectNode counts = result.putObject("by_action");
      byAction.forEach(counts::put);
      result.put("need_a_person", needPerson);
      ArrayNode steps = result.putArray("operations");
      for (RestoreRecovery.Step step : report.steps()) {
        steps
            .addObject()
            .put("operation_id", step.operationId())
            .put("action", step.action())
            .put("detail", step.detail())
            .put("needs_a_person", step.needsPerson());
      }
      out.println(OperationJson.pretty(result));
    } else {
      out.println(
          (apply ? "Recovered" : "Dry run (nothing written; --apply to repair)")
              + " since "
              + from
              + ": "
              + report.workflowsListed()
              + " generation workflow(s) listed, "
              + report.rowsChecked()
              + " unfinished row(s) checked.");
      for (RestoreRecovery.Step step : report.steps()) {
        out.println(
            "  "
                + step.operationId()
                + "  "
                + step.action()
                + (step.needsPerson() ? " (needs a person)" : "")
                + ": "
                + step.detail());
      }
      out.println(
          report.steps().isEmpty()
              ? "Nothing to repair."
              : report.steps().size()
                  + " operation(s) "
                  + (apply ? "repaired" : "to repair")
                  + " "
                  + byAction
                  + "; "
                  + needPerson
                  + " need a person (ops list --phase in_review).");
    }
    return 0;
  }

  private Instant parseSince() {
    String text = since.trim();
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException notAnInstant) {
      try {
        Duration age = new Ages.Converter().convert(text);
        return Instant.now().minus(age);
      } catch (RuntimeException notAnAge) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--since must be an ISO-8601 time (2026-12-06T20:00:00Z) or an age (90m, 2h, 1d), not '"
                + since
                + "'");
      }
    }
  }
}
