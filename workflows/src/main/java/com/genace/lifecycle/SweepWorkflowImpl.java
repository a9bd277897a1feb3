package com.genace.lifecycle;

import com.genace.workflows.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/** One sweep: a single activity, retried a few times; the next scheduled run tries again anyway. */
public class SweepWorkflowImpl implements SweepWorkflow {

  private static final ActivityOptions SWEEP =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofMinutes(10))
          .setHeartbeatTimeout(Duration.ofMinutes(1))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setMaximumAttempts(3)
                  .build())
          .setSummary("sweep orphaned operations")
          .build();

  @Override
  public SweepReport sweep() {
    SweepReport report = Workflow.newActivityStub(SweepActivities.class, SWEEP).sweepOrphans();
    Workflow.setCurrentDetails(
        "checked " + report.checked() + " unfinished operation(s); orphans: " + report.orphans());
    return report;
  }
}
