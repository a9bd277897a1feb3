package com.genace.ops.operations;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationSelection;
import com.genace.client.CancelRequest;
import com.genace.client.CancellationRefusedException;
import com.genace.client.GenerationClient;
import com.genace.client.OperationEndedException;
import com.genace.client.OperationNotFoundException;
import com.genace.client.connection.TemporalSettings;
import com.genace.client.model.Phase;
import com.genace.ops.Environment;
import com.genace.worker.temporal.TemporalConnection;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
 *
 * <p>With filters instead of an ID ({@link BulkFilters}, {@code --phase}) it cancels every matching
 * unfinished operation whose cancel was not requested yet, after a dry run: {@link BulkCommand}.
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
      "With filters instead of an ID, cancels every matching unfinished operation (not those"
          + " whose cancel was requested already): a dry run (count and sample) unless --apply,"
          + " then at most --rate a second, each through the same checks.",
      "Needs DATABASE_URL (to check the operation) and Temporal (TEMPORAL_ADDRESS)."
    })
final class CancelCommand implements java.util.concurrent.Callable<Integer> {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      paramLabel = "ID",
      arity = "0..1",
      description = "The operation id; or none, with filters (bulk).")
  String operationId;

  @Mixin BulkFilters bulk;

  @Option(
      names = "--phase",
      paramLabel = "PHASE",
      description =
          "With filters: only operations in this unfinished phase (default: every unfinished"
              + " phase; in_review with --review-reason).")
  String phase;

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
  public Integer call() {
    if (reason.isBlank()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--reason must not be blank");
    }
    String requester = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
    CancelRequest request = new CancelRequest(reason, requester, deliverRendering);
    if (operationId == null) {
      return cancelAll(request);
    }
    bulk.refuseBesideAnId(spec.commandLine(), phase != null, "--phase, --review-reason, --account");
    cancelOne(request);
    return 0;
  }

  /** Every unfinished operation the filters select, as {@link #cancelOne} would. */
  private int cancelAll(CancelRequest request) {
    request
        .problem()
        .ifPresent(
            problem -> {
              throw new CommandLine.ParameterException(spec.commandLine(), problem);
            });
    List<OperationSelection> selections = bulk.selections(spec.commandLine(), phases(), true);
    return BulkCommand.execute(
        spec.commandLine(),
        env,
        bulk,
        selections,
        "cancel by " + request.requestedBy(),
        (client, row) -> send(client, row.operationId(), request));
  }

  /** The unfinished phases the bulk cancel walks, one after the other. */
  private List<Phase> phases() {
    if (phase == null) {
      return bulk.reviewReason != null
          ? List.of(Phase.IN_REVIEW)
          : Arrays.stream(Phase.values()).filter(p -> !p.isTerminal()).toList();
    }
    Phase only;
    try {
      only = Phase.parse(phase);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "unknown phase '" + phase + "'; accepted phases: " + ListCommand.PHASES);
    }
    if (only.isTerminal()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "phase " + phase + " has ended: nothing to cancel there");
    }
    if (bulk.reviewReason != null && only != Phase.IN_REVIEW) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--review-reason selects reviews: it goes with --phase in_review");
    }
    return List.of(only);
  }

  /** One operation's cancel, as the workflow answers it: the bulk command's action. */
  static BulkOutcome send(GenerationClient client, String operationId, CancelRequest request) {
    try {
      return new BulkOutcome.Applied(client.cancel(operationId, request));
    } catch (OperationEndedException e) {
      return new BulkOutcome.Skipped("ended meanwhile");
    } catch (CancellationRefusedException e) {
      return new BulkOutcome.Refused(e.getMessage());
    } catch (OperationNotFoundException e) {
      return new BulkOutcome.Refused("no workflow on Temporal");
    }
  }

  private void cancelOne(CancelRequest request) {
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
      answer = temporal.generationClient().cancel(operationId, request);
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
