package com.genace.workflows.lifecycle;

import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;

/**
 * One sweep pass: a single activity, bounded in pages and time (it resumes the walk where the
 * previous pass stopped), retried a few times; the next scheduled run tries again anyway.
 */
public class SweepWorkflowImpl implements SweepWorkflow {

  private static final ActivityOptions SWEEP = PassActivity.options("sweep orphaned operations");

  @Override
  public SweepReport sweep() {
    SweepReport report = Workflow.newActivityStub(SweepActivities.class, SWEEP).sweepOrphans();
    Workflow.setCurrentDetails(
        "checked "
            + report.checked()
            + " unfinished operation(s) in "
            + report.pages()
            + " page(s); "
            + (report.walkCompleted()
                ? "the walk over every unfinished operation is complete"
                : "the next pass resumes where this one stopped")
            + "; orphans: "
            + report.orphans());
    return report;
  }
}
