package com.genace.workflows;

import com.genace.model.Phase;
import com.genace.review.ReviewCase;
import java.util.List;

/**
 * What the workflow knows about its operation, for queries: phase, remote job id, the last remote
 * status seen, the review case (if any, with its evidence) and the resolutions it refused, each
 * with its reason. {@code awaitsOperator}: in review, its evidence gathered and no resolution being
 * applied (a review that settles itself never waits for one).
 */
public record OperationView(
    String operationId,
    Phase phase,
    String remoteJobId,
    String lastRemoteStatus,
    int dispatchAttempts,
    ReviewCase review,
    List<String> rejectedResolutions,
    boolean awaitsOperator) {}
