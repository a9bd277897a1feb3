package com.genace.workflows.review;

import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import io.temporal.activity.ActivityInterface;

/**
 * The review's ledger steps. Both are idempotent and retried freely: a retry after a lost response
 * finds the state already recorded and reports it.
 */
@ActivityInterface
public interface ReviewActivities {

  /**
   * Puts the operation in review after a dispatch whose outcome is unknown. Waits out (by failing
   * and being retried) a live dispatch lease, so that a slow dispatcher's late result is seen. For
   * {@code post_outcome_unknown} on an operation still {@code pending} (no dispatch ever marked it
   * {@code submitting}, which comes before every POST) it opens nothing: no POST can have left.
   *
   * @return {@code inReview}; or the remote job id if the dispatch turned out to be accepted; or
   *     {@code nothingSent}
   */
  ReviewOpened openReview(String operationId, ReviewReason reason, String detail);

  /** Records the operator's decision under a reconcile lease. */
  void recordResolution(String operationId, ReviewResolution resolution);
}
