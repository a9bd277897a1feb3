package com.genace.client.review;

import com.genace.client.model.ReviewReason;

/**
 * An uncertainty review as the workflow sees it; {@code resolution} is null while open, {@code
 * evidence} null until gathered.
 */
public record ReviewCase(
    ReviewReason reason,
    String detail,
    String evidenceRemoteJobId,
    ReviewResolution resolution,
    ReviewEvidence evidence) {

  public ReviewCase withResolution(ReviewResolution resolved) {
    return new ReviewCase(reason, detail, evidenceRemoteJobId, resolved, evidence);
  }

  public ReviewCase withEvidence(ReviewEvidence gathered) {
    return new ReviewCase(reason, detail, evidenceRemoteJobId, resolution, gathered);
  }
}
