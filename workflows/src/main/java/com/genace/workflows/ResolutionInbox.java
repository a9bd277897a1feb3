package com.genace.workflows;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.Phase;
import com.genace.client.review.ResolutionPayload;
import com.genace.client.review.ReviewResolution;
import com.genace.workflows.model.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.Optional;

/**
 * Resolutions waiting to be applied, one at a time: an operator's (the {@code
 * resolveReconciliation} signal, the {@code resolve} update) or the one a review settles itself
 * with. What can be refused at once is refused on arrival; every refusal is listed where describe
 * and the Web UI show it, logged and counted.
 */
final class ResolutionInbox {

  private static final OperationLog outcomes = OperationLog.ofWorkflow();

  static final String RECONCILER_RESERVED =
      "resolvedBy '"
          + GenerationWorkflow.RECONCILER
          + "' is reserved to the reviews that settle themselves; sign as yourself";

  private final OperationState operation;
  private final ResolutionCheck check;

  private Submission pending;
  private boolean applying;

  ResolutionInbox(OperationState operation, ResolutionCheck check) {
    this.operation = operation;
    this.check = check;
  }

  /** The signal: a payload of any shape is answered, a refusal only listed. */
  void receive(JsonNode payload) {
    String shown = ResolutionPayload.shown(payload);
    if (ResolutionPayload.carriesApprovals(payload) && !VersionMarkers.signedApprovals()) {
      refuse(shown, "unknown field 'approvals'"); // as 0.1.0 refused it
      return;
    }
    ResolutionPayload.Parsed parsed = ResolutionPayload.parse(payload);
    if (parsed.problem() != null) {
      refuse(shown, parsed.problem());
      return;
    }
    if (parsed.resolution().claimsReconciler() && VersionMarkers.reservedReconciler()) {
      refuse(shown, RECONCILER_RESERVED);
      return;
    }
    Optional<String> problem = problemWith(parsed.resolution());
    if (problem.isPresent()) {
      refuse(shown, problem.get());
      return;
    }
    pending = new Submission(parsed.resolution(), shown, false, null);
  }

  /** The update: it waits for the outcome and fails with a refusal. */
  String receive(ReviewResolution resolution) {
    String accepted = "accepted " + resolution.parsedDecision().orElseThrow().wire();
    Verdict verdict = new Verdict();
    pending = new Submission(resolution, String.valueOf(resolution), false, verdict);
    Workflow.await(verdict::decided);
    if (verdict.refusal() != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          verdict.refusal(), FailureTypes.RESOLUTION_REFUSED);
    }
    return accepted;
  }

  /** The update's validator (a refused update leaves no history, so no version is asked). */
  void validate(ReviewResolution resolution) {
    Optional.ofNullable(resolution)
        .filter(ReviewResolution::claimsReconciler)
        .map(reserved -> RECONCILER_RESERVED)
        .or(() -> problemWith(resolution))
        .ifPresent(
            problem -> {
              outcomes.warn(
                  operation.operationId(),
                  operation.remoteJobId(),
                  "operation {}: resolution refused: {}",
                  operation.operationId(),
                  problem);
              throw new IllegalArgumentException(problem);
            });
  }

  /** A review settling itself from its evidence, with a job already read on Genace. */
  void settle(ReviewResolution settled) {
    pending = new Submission(settled, "self-settling", true, null);
  }

  boolean hasPending() {
    return pending != null;
  }

  /** Neither a resolution waiting nor one being applied. */
  boolean idle() {
    return pending == null && !applying;
  }

  /** Takes the waiting resolution to apply it; {@link #applied} must follow. */
  Submission take() {
    Submission submission = pending;
    pending = null;
    applying = true;
    return submission;
  }

  /** Answers the update that sent it, if one did, and lists a refusal. */
  void applied(Submission submission, Optional<String> refusal) {
    applying = false;
    if (submission.verdict() != null) {
      submission.verdict().decide(refusal.orElse(null));
    }
    refusal.ifPresent(reason -> refuse(submission.shown(), reason));
  }

  private Optional<String> problemWith(ReviewResolution resolution) {
    if (resolution == null) {
      return Optional.of("the resolution is empty");
    }
    if (operation.phase() != Phase.IN_REVIEW || pending != null) {
      return Optional.of(
          "operation "
              + operation.operationId()
              + " is not in review (phase "
              + operation.phase().wire()
              + ")");
    }
    if (applying) {
      return Optional.of(
          "operation "
              + operation.operationId()
              + " is applying another resolution; ask again shortly");
    }
    Optional<String> problem = resolution.problemAsWhole();
    if (problem.isPresent()) {
      return problem;
    }
    return check.problemWithEvidence(resolution);
  }

  private void refuse(String shown, String reason) {
    operation.addRefusal("refused " + codeSpan(shown) + ": " + reason);
    outcomes.warn(
        operation.operationId(),
        operation.remoteJobId(),
        "operation {}: resolution refused: {} (payload {})",
        operation.operationId(),
        reason,
        shown);
    WorkflowCounters.increment(WorkflowCounters.REVIEW_RESOLUTIONS_REFUSED);
    operation.showDetails();
  }

  /**
   * The payload as one Markdown code span, so that the Web UI shows it with straight quotes (copied
   * from there, it is the JSON that was sent) and nothing in it is read as Markdown: fenced by one
   * backtick more than the longest run of backticks it holds (CommonMark closes a span only at a
   * run of the same length), padded where it starts or ends with one, and on one line (a blank line
   * would end the span; whitespace between JSON tokens means nothing).
   */
  static String codeSpan(String payload) {
    String oneLine = payload.replaceAll("[\\r\\n]+", " ");
    int longest = 0;
    int run = 0;
    for (int i = 0; i < oneLine.length(); i++) {
      run = oneLine.charAt(i) == '`' ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    String fence = "`".repeat(longest + 1);
    String pad = oneLine.startsWith("`") || oneLine.endsWith("`") ? " " : "";
    return fence + pad + oneLine + pad + fence;
  }

  /**
   * A resolution waiting to be applied.
   *
   * @param shown how a refusal names it
   * @param prechecked already checked on Genace (a review settling itself from its evidence)
   * @param verdict where an update waits for the outcome; null for a signal
   */
  record Submission(
      ReviewResolution resolution, String shown, boolean prechecked, Verdict verdict) {}

  /** The outcome an update handler waits for. */
  static final class Verdict {
    private boolean decided;
    private String refusal;

    void decide(String refusalOrNull) {
      refusal = refusalOrNull;
      decided = true;
    }

    boolean decided() {
      return decided;
    }

    String refusal() {
      return refusal;
    }
  }
}
