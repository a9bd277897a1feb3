package com.genace.review;

import com.genace.model.ReviewReason;

/** An uncertainty review as the workflow sees it; {@code resolution} is null while open. */
public record ReviewCase(
    ReviewReason reason, String detail, String evidenceRemoteJobId, ReviewResolution resolution) {}
