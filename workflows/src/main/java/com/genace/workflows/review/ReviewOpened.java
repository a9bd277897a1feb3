package com.genace.workflows.review;

import com.genace.client.model.ReviewReason;

/**
 * The result of {@link ReviewActivities#openReview}: the operation is in review; or the ledger
 * already holds an accepted remote job id (a late dispatch result), to be observed instead; or,
 * after a dispatch that never reported back, the ledger shows that no POST can have left ({@code
 * nothingSent}), so the operation is dispatched again instead.
 */
public record ReviewOpened(
    boolean inReview, String acceptedRemoteJobId, ReviewReason reason, boolean nothingSent) {

  public static ReviewOpened opened(ReviewReason reason) {
    return new ReviewOpened(true, null, reason, false);
  }

  public static ReviewOpened alreadyAccepted(String remoteJobId) {
    return new ReviewOpened(false, remoteJobId, null, false);
  }

  public static ReviewOpened provablyNothingSent() {
    return new ReviewOpened(false, null, null, true);
  }
}
