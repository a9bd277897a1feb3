package com.genace.ops.operations;

import com.genace.ledger.OperationRow;
import com.genace.lifecycle.CancelRequest;
import com.genace.ops.Environment;
import com.genace.worker.temporal.TemporalConnection;
import com.genace.workflows.CancellationRefusedException;
import com.genace.workflows.OperationEndedException;
import com.genace.workflows.OperationNotFoundException;
import com.genace.workflows.connection.TemporalSettings;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code genace ops cancel}: cancels an operation from outside.
 *
 * <ol>
 *   <li>The ledger must know the operation and show it unfinished; otherwise nothing is sent.
 *   <li>The request goes to the workflow as the validated {@code cancel} update, which answers
 *       synchronously; the workflow then ends the operation according to where it stands.
 * </ol>
 */
@Command(
    name = "cancel",
    mixinStandardHelpOptions = true,
    description = {
      "Cancel an operation: never sends a POST, never forgets a render Genace accepted.",
      "Before any POST it ends abandoned; a POST in flight is waited for (an unknown outcome opens"
          + " a review); a render already accepted ends abandoned with its remote job id recorded"
          + " (or is still delivered with --deliver-rendering); a delivery under way finishes.",
      "A second cancel while the first is handled changes nothing.",
      "Needs DATABASE_URL (to check the operation) and Temporal (TEMPORAL_ADDRESS)."
    })
final class CancelCommand implements Runnable {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "The operation id.")
  String operationId;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "TEXT",
      description = "Why, for the record (kept in the table and shown by ops show).")
  String reason;

  @Option(
      names = "--by",
      paramLabel = "NAME",
      description = "Who cancels (default: $USER, or 'operator').")
  String by;

  @Option(
      names = "--deliver-rendering",
      description =
          "Still observe and deliver a render Genace already accepted (default: not delivered;"
              + " its remote job id stays recorded).")
  boolean deliverRendering;

  CancelCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    if (reason.isBlank()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--reason must not be blank");
    }
    String requester = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
    OperationRow row;
    try (LedgerAccess access = LedgerAccess.open(env)) {
      row = access.ledger(ledger -> ledger.get(operationId));
    }
    if (row.phase().isTerminal()) {
      throw new IllegalStateException(
          "operation "
              + operationId
              + " has already ended "
              + row.phase().wire()
              + row.failureReason().map(f -> " (" + f + ")").orElse(""));
    }
    String answer;
    try (TemporalConnection temporal =
        TemporalConnection.open(TemporalSettings.fromEnvironment(env.variables()))) {
      answer =
          temporal
              .generationClient()
              .cancel(operationId, new CancelRequest(reason, requester, deliverRendering));
    } catch (OperationEndedException | CancellationRefusedException e) {
      throw new IllegalStateException("the workflow refused the cancel: " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    } catch (OperationNotFoundException e) {
      throw new IllegalStateException(
          "operation " + operationId + " has no workflow on Temporal", e);
    }
    spec.commandLine().getOut().println("operation " + operationId + ": " + answer);
  }
}
