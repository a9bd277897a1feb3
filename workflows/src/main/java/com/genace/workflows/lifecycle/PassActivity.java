package com.genace.workflows.lifecycle;

import com.genace.client.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * How a periodic pass (the orphan sweep, the ledger retention) runs its one activity: on {@code
 * genace-operations}, bounded to 10 minutes a try and heartbeating, and retried only a few times,
 * since the next scheduled run goes on where this one stopped anyway. These options are part of the
 * commands the passes' workflows record: a change here is a workflow change (see
 * docs/workflow-versions.md).
 */
final class PassActivity {

  private PassActivity() {}

  /** The options of a pass's activity, with the summary the Web UI shows for it. */
  static ActivityOptions options(String summary) {
    return ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.OPERATIONS)
        .setStartToCloseTimeout(Duration.ofMinutes(10))
        .setHeartbeatTimeout(Duration.ofMinutes(1))
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setInitialInterval(Duration.ofSeconds(1))
                .setMaximumAttempts(3)
                .build())
        .setSummary(summary)
        .build();
  }
}
