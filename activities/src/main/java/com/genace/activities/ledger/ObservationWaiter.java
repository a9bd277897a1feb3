package com.genace.activities.ledger;

import java.util.Optional;

/**
 * The activity waiting for an observation's outcome, as Temporal names it, and the W3C {@code
 * traceparent} of its span, if it was traced, so that the polls made for it join its trace.
 */
public record ObservationWaiter(
    String workflowId, String runId, String activityId, Optional<String> traceParent) {

  public ObservationWaiter(String workflowId, String runId, String activityId) {
    this(workflowId, runId, activityId, Optional.empty());
  }
}
