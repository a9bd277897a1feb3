package com.genace.ops.operations;

import com.genace.ledger.OperationRow;
import com.genace.model.Phase;
import com.genace.model.ReviewDecision;
import com.genace.ops.Environment;
import com.genace.review.ReviewResolution;
import com.genace.worker.temporal.TemporalConnection;
import com.genace.workflows.OperationNotFoundException;
import com.genace.workflows.ResolutionRefusedException;
import com.genace.workflows.connection.TemporalSettings;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
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
 */
@Command(
    name = "resolve",
    mixinStandardHelpOptions = true,
    description = {
      "Resolve an operation's uncertainty review (the POST's outcome was unknown).",
      "Give exactly one decision: --found-remote-job JOB (Genace has the render: observe it),"
          + " --not-submitted (Genace provably has nothing: dispatch again), or --abandon.",
      "Needs DATABASE_URL (to check the operation) and Temporal (TEMPORAL_ADDRESS)."
    })
final class ResolveCommand implements Runnable {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "The operation id.")
  String operationId;

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
      description = "Who resolves it (default: $USER, or 'operator').")
  String by;

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
  public void run() {
    if (reason.isBlank()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--reason must not be blank");
    }
    if (decision.foundRemoteJob != null && decision.foundRemoteJob.isBlank()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--found-remote-job needs the remote job id");
    }
    String resolver = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
    OperationRow row;
    try (LedgerAccess access = LedgerAccess.open(env)) {
      row = access.ledger(ledger -> ledger.get(operationId));
    }
    if (row.phase() != Phase.IN_REVIEW) {
      throw new IllegalStateException(
          "operation " + operationId + " is not in review (phase " + row.phase().wire() + ")");
    }
    ReviewDecision chosen = decision.decision();
    ReviewResolution resolution =
        new ReviewResolution(chosen.wire(), decision.foundRemoteJob, reason, resolver);
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
