package com.genace.workflows.lifecycle;

import com.genace.client.model.Phase;

/**
 * Where {@link CancelActivities#endCancelled} left the operation: terminal, or in review when a
 * POST may have left and an operator must look for the paid render first.
 */
public record CancelOutcome(Phase phase, String remoteJobId) {}
