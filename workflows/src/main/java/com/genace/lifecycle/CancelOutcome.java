package com.genace.lifecycle;

import com.genace.model.Phase;

/**
 * Where {@link CancelActivities#endCancelled} left the operation: terminal, or in review when a
 * POST may have left and an operator must look for the paid render first.
 */
public record CancelOutcome(Phase phase, String remoteJobId) {}
