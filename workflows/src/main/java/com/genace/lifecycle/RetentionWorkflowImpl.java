package com.genace.lifecycle;

import com.genace.workflows.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * One retention pass: a single activity, bounded in batches and time, retried a few times; the next
 * scheduled run goes on where this one stopped anyway (what is still due).
 */
public class RetentionWorkflowImpl implements RetentionWorkflow {

  private static final ActivityOptions RETENTION =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofMinutes(10))
          .setHeartbeatTimeout(Duration.ofMinutes(1))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setMaximumAttempts(3)
                  .build())
          .setSummary("delete ended operations older than the ledger's retention")
          .build();

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
