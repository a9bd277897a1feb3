package com.genace.workflows.lifecycle;

import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;

/**
 * One retention pass: a single activity, bounded in batches and time, retried a few times; the next
 * scheduled run goes on where this one stopped anyway (what is still due).
 */
public class RetentionWorkflowImpl implements RetentionWorkflow {

  private static final ActivityOptions RETENTION =
      PassActivity.options("delete ended operations older than the ledger's retention");

  @Override
  public RetentionReport applyRetention(RetentionRequest request) {
    RetentionReport report =
        Workflow.newActivityStub(RetentionActivities.class, RETENTION).applyRetention(request);
    Workflow.setCurrentDetails(
        "deleted "
            + report.operationsDeleted()
            + " ended operation(s) with "
            + report.transitionsDeleted()
            + " transition(s) in "
            + report.batches()
            + " batch(es); kept "
            + report.keptForAllowance()
            + " the allowance still counts; "
            + (report.complete()
                ? "nothing else is due"
                : "the next pass goes on where this one stopped"));
    return report;
  }
}
