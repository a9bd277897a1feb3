package com.genace.workflows;

import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * The counters the workflow increments through Temporal's metrics scope (on replay Temporal's scope
 * counts nothing), which the worker exports with the rest of its metrics. Their help texts are the
 * worker's: every name here needs one there.
 */
public final class WorkflowCounters {

  public static final String REVIEW_REMINDERS = "genace_review_reminders";
  public static final String REVIEW_RESOLUTIONS_REFUSED = "genace_review_resolutions_refused";
  public static final String OPERATIONS_CANCELLED = "genace_operations_cancelled";

  public static final List<String> ALL =
      List.of(REVIEW_REMINDERS, REVIEW_RESOLUTIONS_REFUSED, OPERATIONS_CANCELLED);

  private WorkflowCounters() {}

  static void increment(String name) {
    Workflow.getMetricsScope().counter(name).inc(1);
  }
}
