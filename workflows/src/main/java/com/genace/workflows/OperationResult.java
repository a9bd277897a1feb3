package com.genace.workflows;

import com.genace.model.Phase;

/** How an operation ended: {@code delivered}, {@code failed} or {@code abandoned}. */
public record OperationResult(String operationId, Phase phase, String remoteJobId, String detail) {}
