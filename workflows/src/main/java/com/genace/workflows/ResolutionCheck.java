package com.genace.workflows;

import com.genace.model.ReviewDecision;
import com.genace.review.JobCheck;
import com.genace.review.ReviewActivities;
import com.genace.review.ReviewEvidence;
import com.genace.review.ReviewResolution;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.Optional;

/**
 * Whether a resolution may be accepted, checked whole ({@link VersionMarkers#CHECKED_RESOLUTIONS}),
 * and its recording in the ledger:
 *
 * <ol>
 *   <li>{@code not_submitted} is refused while the review's evidence shows a job of this operation;
 *   <li>a job named by {@code found_remote_job} is read on Genace first, unless the review settled
 *       itself with it;
 *   <li>the ledger records it; a permanent refusal of the ledger is a refusal, not a retry.
 * </ol>
 */
final class ResolutionCheck {

  private final OperationState operation;
  private final VersionMarkers versions;

  ResolutionCheck(OperationState operation, VersionMarkers versions) {
    this.operation = operation;
    this.versions = versions;
  }

  /**
   * Refuses {@code not_submitted} while Genace shows a job carrying this operation id: dispatching
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
        "not_submitted refused: Genace holds "
            + evidence.summary()
            + "; resolve found_remote_job (or abandon)");
  }

  /**
   * Checks a resolution where it names a job on Genace, then records it in the ledger.
   *
   * @param prechecked the job it names was already read on Genace (a review settling itself)
   * @return the refusal, if any; the review then stays open and resolvable
   */
  Optional<String> checkAndRecord(ReviewResolution resolution, boolean prechecked) {
    ReviewActivities ledger = ActivityStubs.ledger("record resolution " + resolution.decision());
    if (!versions.checksResolutionsWhole()) {
      ledger.recordResolution(operation.operationId(), resolution);
      return Optional.empty();
    }
    Optional<String> refusal = problemWithEvidence(resolution);
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
        return Optional.of("the ledger refused it: " + app.getOriginalMessage());
      }
      throw failure;
    }
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
