package com.genace.ops.operations;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationSelection;
import com.genace.client.GenerationClient;
import com.genace.client.OperationNotFoundException;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.connection.TemporalSettings;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.client.review.ReviewResolution;
import com.genace.ops.Environment;
import com.genace.worker.temporal.TemporalConnection;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code genace ops resolve}: an operator's decision on an uncertainty review.
 *
 * <ol>
 *   <li>The ledger must show the operation {@code in_review}; otherwise nothing is sent.
 *   <li>The decision goes to the workflow as the validated {@code resolve} update, which answers
 *       synchronously: a refusal (not in review any more, missing job id) is reported as it is.
 * </ol>
 *
 * <p>With filters instead of an ID ({@link BulkFilters}) it resolves every matching review the same
 * way, one update each, after a dry run: {@link BulkCommand}.
 */
@Command(
    name = "resolve",
    mixinStandardHelpOptions = true,
    description = {
      "Resolve an operation's uncertainty review (the POST's outcome was unknown).",
      "Give exactly one decision: --found-remote-job JOB (Genace has the render: observe it),"
          + " --not-submitted (Genace provably has nothing: dispatch again), or --abandon.",
      "With filters instead of an ID, resolves every matching review the same way: a dry run"
          + " (count and sample) unless --apply, then at most --rate a second, each through the"
          + " same checks (a bulk --not-submitted re-checks each operation's evidence).",
      "Needs DATABASE_URL (to check the operation) and Temporal (TEMPORAL_ADDRESS)."
    })
final class ResolveCommand implements java.util.concurrent.Callable<Integer> {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      paramLabel = "ID",
      arity = "0..1",
      description = "The operation id; or none, with filters (bulk).")
  String operationId;

  @Mixin BulkFilters bulk;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Decision decision;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "TEXT",
      description = "Why: what you checked, for the record.")
  String reason;

  @Option(
      names = "--by",
      paramLabel = "NAME",
      description =
          "Who resolves it (default: $USER, or 'operator'); with GENACE_OPERATOR_KEY, the approver"
              + " the key is registered under.")
  String by;

  @Option(
      names = "--print-payload",
      description =
          "Print the resolution as the JSON of the resolveReconciliation signal (signed with"
              + " GENACE_OPERATOR_KEY when it spends again), to paste into the Web UI's Send a"
              + " Signal; send nothing.")
  boolean printPayload;

  static final class Decision {
    @Option(
        names = "--found-remote-job",
        paramLabel = "JOB",
        description = "Genace did create this job for the operation: observe it.")
    String foundRemoteJob;

    @Option(
        names = "--not-submitted",
        description = "Genace provably has no job for it: dispatch again.")
    boolean notSubmitted;

    @Option(names = "--abandon", description = "Give the operation up; it ends abandoned.")
    boolean abandon;

    ReviewDecision decision() {
      if (foundRemoteJob != null) {
        return ReviewDecision.FOUND_REMOTE_JOB;
      }
      return notSubmitted ? ReviewDecision.NOT_SUBMITTED : ReviewDecision.ABANDON;
    }
  }

  ResolveCommand(Environment env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    if (reason.isBlank()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--reason must not be blank");
    }
    if (decision.foundRemoteJob != null && decision.foundRemoteJob.isBlank()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--found-remote-job needs the remote job id");
    }
    String resolver = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
    if (operationId == null) {
      return resolveAll(resolver);
    }
    bulk.refuseBesideAnId(spec.commandLine(), false, "--review-reason, --account");
    resolveOne(resolver);
    return 0;
  }

  /** Every review the filters select, as {@link #resolveOne} would, one update each. */
  private int resolveAll(String resolver) {
    if (decision.foundRemoteJob != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--found-remote-job names one job: give it with an operation ID, not with filters");
    }
    java.util.List<OperationSelection> selections =
        bulk.selections(spec.commandLine(), java.util.List.of(Phase.IN_REVIEW), false);
    if (printPayload) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--print-payload prints one operation's: give its ID");
    }
    ReviewDecision chosen = decision.decision();
    ReviewResolution resolution = new ReviewResolution(chosen.wire(), null, reason, resolver);
    ApprovalSigner signer = ApprovalSigner.fromEnvironment(env);
    try (LedgerAccess access = LedgerAccess.open(env)) {
      // Each operation's own approval: its id and the digest of its own evidence.
      return BulkCommand.execute(
          spec.commandLine(),
          env,
          bulk,
          selections,
          "resolve " + chosen.wire() + " by " + resolver + (signer.hasKey() ? " (signed)" : ""),
          (client, row) ->
              send(
                  client, row.operationId(), signer.signed(resolution, row.operationId(), access)));
    }
  }

  /** One operation's resolution, as the workflow answers it: the bulk command's action. */
  static BulkOutcome send(
      GenerationClient client, String operationId, ReviewResolution resolution) {
    try {
      return new BulkOutcome.Applied(client.resolve(operationId, resolution));
    } catch (ResolutionRefusedException e) {
      return new BulkOutcome.Refused(e.getMessage());
    } catch (OperationNotFoundException e) {
      return new BulkOutcome.Refused("no workflow on Temporal");
    }
  }

  private void resolveOne(String resolver) {
    ReviewDecision chosen = decision.decision();
    ReviewResolution resolution;
    try (LedgerAccess access = LedgerAccess.open(env)) {
      OperationRow row = access.ledger(ledger -> ledger.get(operationId));
      if (row.phase() != Phase.IN_REVIEW) {
        throw new IllegalStateException(
            "operation " + operationId + " is not in review (phase " + row.phase().wire() + ")");
      }
      resolution =
          ApprovalSigner.fromEnvironment(env)
              .signed(
                  new ReviewResolution(chosen.wire(), decision.foundRemoteJob, reason, resolver),
                  operationId,
                  access);
    }
    if (printPayload) {
      spec.commandLine().getOut().println(OperationJson.signalPayload(resolution));
      return;
    }
    String answer;
    try (TemporalConnection temporal =
        TemporalConnection.open(TemporalSettings.fromEnvironment(env.variables()))) {
      answer = temporal.generationClient().resolve(operationId, resolution);
    } catch (ResolutionRefusedException e) {
      throw new IllegalStateException("the workflow refused the resolution: " + e.getMessage(), e);
    } catch (OperationNotFoundException e) {
      throw new IllegalStateException(
          "operation " + operationId + " has no workflow on Temporal", e);
    }
    spec.commandLine()
        .getOut()
        .println(
            "operation "
                + operationId
                + ": "
                + answer
                + (decision.foundRemoteJob == null
                    ? ""
                    : " (remote job " + decision.foundRemoteJob + ")")
                + " by "
                + resolver
                + "; next: "
                + chosen.nextPhase().wire());
  }
}
