package com.genace.workflows;

import com.genace.client.model.ReviewDecision;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import com.genace.workflows.review.JobCheck;
import com.genace.workflows.review.ReviewActivities;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.Optional;

/**
 * Whether a resolution may be accepted, checked whole, and its recording in the ledger:
 *
 * <ol>
 *   <li>{@code not_submitted} is refused while the review's evidence shows a job of this operation,
 *       or the evidence gathered again when it is applied does, or that evidence could not look
 *       (Genace's search or a job id seen did not answer);
 *   <li>a job named by {@code found_remote_job} is read on Genace first, unless the review settled
 *       itself with it;
 *   <li>the ledger records it; a permanent refusal of the ledger is a refusal, not a retry.
 * </ol>
 */
final class ResolutionCheck {

  private final OperationState operation;

  ResolutionCheck(OperationState operation) {
    this.operation = operation;
  }

  /**
   * Refuses {@code not_submitted} while the evidence shows a job of this operation: dispatching
   * again would pay for a second render.
   */
  Optional<String> problemWithEvidence(ReviewResolution resolution) {
    ReviewEvidence evidence = operation.review() == null ? null : operation.review().evidence();
    if (evidence == null
        || evidence.candidates().isEmpty()
        || resolution.parsedDecision().orElse(null) != ReviewDecision.NOT_SUBMITTED) {
      return Optional.empty();
    }
    return Optional.of(
        "not_submitted refused: the evidence shows "
            + evidence.summary()
            + "; resolve found_remote_job (or abandon)");
  }

  /**
   * Checks a resolution where it names a job on Genace, then records it in the ledger.
   *
   * @param prechecked the job it names was already read on Genace (a review settling itself)
   * @return the refusal, if any; the review then stays open and resolvable, unless the ledger
   *     showed that the operation ended (then it has ended here too)
   */
  Optional<String> checkAndRecord(ReviewResolution resolution, boolean prechecked) {
    ReviewActivities ledger = ActivityStubs.ledger("record resolution " + resolution.decision());
    Optional<String> refusal = problemWithEvidence(resolution);
    if (refusal.isEmpty()
        && resolution.parsedDecision().orElseThrow() == ReviewDecision.NOT_SUBMITTED) {
      refusal = gatherEvidenceAgain().or(() -> problemWithEvidence(resolution));
    }
    if (refusal.isEmpty()
        && !prechecked
        && resolution.parsedDecision().orElseThrow() == ReviewDecision.FOUND_REMOTE_JOB) {
      refusal = checkOnGenace(resolution.remoteJobId().trim());
    }
    if (refusal.isPresent()) {
      return refusal;
    }
    try {
      ledger.recordResolution(operation.operationId(), resolution);
      return Optional.empty();
    } catch (ActivityFailure failure) {
      if (failure.getCause() instanceof ApplicationFailure app && app.isNonRetryable()) {
        // The operation ended in the ledger meanwhile: the workflow ends the same way.
        ActivityFailures.endedInLedger(failure)
            .ifPresent(ended -> operation.finish(ended, app.getOriginalMessage()));
        return Optional.of("the ledger refused it: " + app.getOriginalMessage());
      }
      throw failure;
    }
  }

  /**
   * The evidence gathered once may be stale: a dispatcher that froze after its claim can POST after
   * the review opened. So it is gathered again, with what the ledger and the exchanges saw. Only
   * evidence that could look counts: a search that did not answer (an outage) or a job id seen that
   * could not be read refuses {@code not_submitted}, since a POST answered during an outage may
   * have created a paid job that nobody could see. A search this Genace does not offer is an
   * answer: the re-check then rests on the job ids seen (docs/operations.md).
   *
   * @return a refusal when it could not be gathered, or could not look; else the fresh evidence is
   *     on the review
   */
  private Optional<String> gatherEvidenceAgain() {
    ReviewEvidence evidence;
    try {
      evidence =
          ActivityStubs.evidence("gather evidence again before dispatching again")
              .gatherEvidenceAgain(operation.operationId(), operation.jobIdsSeen());
    } catch (ActivityFailure failure) {
      return Optional.of(
          "not_submitted refused: the evidence could not be gathered again ("
              + ActivityFailures.describe(failure)
              + "); ask again later, or abandon");
    }
    Optional<String> unchecked = evidence.unchecked();
    if (unchecked.isPresent()
        && evidence.candidates().isEmpty()
        && VersionMarkers.checkedResolutions() >= VersionMarkers.CHECKED_RESOLUTIONS_REFUSE) {
      // Nothing found where nothing could be looked at proves nothing: the review waits as it was.
      return Optional.of(
          "not_submitted refused: could not check: "
              + unchecked.get()
              + "; ask again later, or abandon");
    }
    operation.recordReview(operation.review().withEvidence(evidence));
    operation.showDetails();
    return Optional.empty();
  }

  private Optional<String> checkOnGenace(String jobId) {
    try {
      JobCheck check =
          ActivityStubs.jobCheck("GET /v1/generations/" + jobId + " (check)")
              .checkFoundJob(operation.operationId(), jobId);
      return Optional.ofNullable(check.refusal());
    } catch (ActivityFailure failure) {
      return Optional.of(
          "could not read job " + jobId + " on Genace: " + ActivityFailures.describe(failure));
    }
  }
}
