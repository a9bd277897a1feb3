package com.genace.ops.operations;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationSelection;
import com.genace.client.GenerationClient;
import com.genace.client.connection.TemporalSettings;
import com.genace.ops.Environment;
import com.genace.worker.temporal.TemporalConnection;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * What {@code ops resolve} and {@code ops cancel} do with filters instead of an ID: a dry run (the
 * count and a sample) unless {@code --apply}; then the walk, its progress and its summary. Exit
 * codes: 0 when nothing was refused, 1 when something was (or the run stopped), 130 when
 * interrupted.
 */
final class BulkCommand {

  static final int SAMPLE = 10;
  static final int INTERRUPTED = 130;

  private BulkCommand() {}

  /**
   * @param what what applying does, e.g. {@code resolve as abandon}, for the lines printed
   * @param action one operation's command, on its row as just read again
   */
  static int execute(
      CommandLine cli,
      Environment env,
      BulkFilters filters,
      List<OperationSelection> selections,
      String what,
      BiFunction<GenerationClient, OperationRow, BulkOutcome> action) {
    // Temporal only when something is sent: a dry run needs the ledger alone.
    try (LedgerAccess access = LedgerAccess.open(env, BulkRun.PARALLEL + 1);
        TemporalConnection temporal =
            filters.apply
                ? TemporalConnection.open(TemporalSettings.fromEnvironment(env.variables()))
                : null) {
      return execute(
          cli,
          access,
          filters,
          selections,
          what,
          row -> action.apply(temporal.generationClient(), row));
    }
  }

  private static int execute(
      CommandLine cli,
      LedgerAccess access,
      BulkFilters filters,
      List<OperationSelection> selections,
      String what,
      Function<OperationRow, BulkOutcome> action) {
    BulkRun run = new BulkRun(access, selections, filters.rate, cli.getErr());
    PrintWriter out = cli.getOut();
    if (!filters.apply) {
      dryRun(out, filters, run, what);
      return 0;
    }
    BulkSummary summary;
    try (StopOnSignal stop = StopOnSignal.forCurrentThread()) {
      summary = run.run(what, action);
      if (filters.json) {
        out.println(OperationJson.pretty(summary.json()));
      } else {
        summary.print(out);
      }
    }
    if (summary.wasInterrupted()) {
      return INTERRUPTED;
    }
    return summary.anyRefused() || summary.stopped() ? 1 : 0;
  }

  private static void dryRun(PrintWriter out, BulkFilters filters, BulkRun run, String what) {
    long count = run.count();
    List<OperationRow> sample = run.sample(SAMPLE);
    Instant now = Instant.now();
    if (filters.json) {
      ObjectNode json = OperationJson.JSON.createObjectNode();
      json.put("dry_run", true);
      json.put("selected", count);
      sample.forEach(row -> json.withArray("sample").add(OperationJson.summary(row)));
      out.println(OperationJson.pretty(json));
      return;
    }
    out.println(
        count
            + " operation(s) match ("
            + (filters.all ? "--all" : String.join(" ", filters.filtersGiven()))
            + ")");
    if (count == 0) {
      return;
    }
    TextTable table = new TextTable("OPERATION", "PHASE", "ACCOUNT", "MODEL", "AGE", "REASON");
    for (OperationRow row : sample) {
      table.row(
          row.operationId(),
          row.phase().wire(),
          row.account(),
          row.model(),
          Ages.format(Duration.between(row.createdAt(), now)),
          ListCommand.reason(row, now));
    }
    table.print(out);
    if (count > sample.size()) {
      out.println("... and " + (count - sample.size()) + " more (oldest first)");
    }
    out.println(
        "dry run: nothing was changed. Add --apply to "
            + what
            + " at "
            + filters.rate
            + "/s (about "
            + Ages.format(Duration.ofSeconds(Math.max(1, count / filters.rate)))
            + ").");
  }
}
