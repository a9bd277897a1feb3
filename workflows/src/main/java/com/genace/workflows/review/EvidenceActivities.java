package com.genace.workflows.review;

import com.genace.client.review.ReviewEvidence;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * What Genace can tell about an operation in review. Reads only: nothing here creates a render.
 * Both are safe to retry.
 */
@ActivityInterface
public interface EvidenceActivities {

  /**
   * Gathers the evidence of a review that just opened and keeps it on the review case in the
   * ledger: the job behind {@code seenJobId} (if any), and the jobs Genace's optional search lists
   * for the operation id, searched again for a short window since the list may lag creation.
   *
   * @param seenJobId a job id seen in the failed exchange, or null
   * @return the evidence, with the job to settle the review with when exactly one carries the
   *     operation id and self-settling is on
   */
  ReviewEvidence gatherEvidence(String operationId, String seenJobId);

  /**
   * Gathers the evidence of a review again before {@code not_submitted} is applied, and keeps it on
   * the review case: besides what {@link #gatherEvidence} reads, every job id the ledger's history
   * holds from a denied write (a dispatcher that POSTed after its lease ran out) and every id in
   * {@code seenJobIds} counts as a job of this operation, whether or not Genace can read it now.
   *
   * @param seenJobIds job ids the workflow saw in this operation's exchanges
   * @return the evidence; never one to settle the review with
   */
  ReviewEvidence gatherEvidenceAgain(String operationId, List<String> seenJobIds);

  /**
   * Reads a job an operator named for {@code found_remote_job}. Refuses a job Genace does not know
   * and one whose {@code metadata.operation_id} names another operation; a Genace that cannot be
   * reached fails the attempt (retried by Temporal).
   */
  JobCheck checkFoundJob(String operationId, String remoteJobId);
}
