package com.genace.review;

/** An uncertainty review as the workflow sees it; {@code resolution} is null while open. */
public record ReviewCase(
    String reason, String detail, String evidenceRemoteJobId, ReviewResolution resolution) {}
