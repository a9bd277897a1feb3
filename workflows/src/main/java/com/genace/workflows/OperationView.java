package com.genace.workflows;

import com.genace.model.Phase;
import com.genace.review.ReviewCase;
import java.util.List;

/**
 * What the workflow knows about its operation, for queries: phase, remote job id, the last remote
 * status seen, the review case (if any) and the resolutions it refused.
 */
public record OperationView(
    String operationId,
    Phase phase,
    String remoteJobId,
    String lastRemoteStatus,
    int dispatchAttempts,
    ReviewCase review,
    List<String> rejectedResolutions) {}
