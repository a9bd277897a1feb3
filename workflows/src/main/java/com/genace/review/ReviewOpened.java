package com.genace.review;

import com.genace.model.ReviewReason;

/**
 * The result of {@link ReviewActivities#openReview}: either the operation is in review, or the
 * ledger already holds an accepted remote job id (a late dispatch result), to be observed instead.
 */
public record ReviewOpened(boolean inReview, String acceptedRemoteJobId, ReviewReason reason) {}
