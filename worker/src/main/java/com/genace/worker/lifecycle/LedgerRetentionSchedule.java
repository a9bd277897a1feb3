package com.genace.worker.lifecycle;

import com.genace.lifecycle.RetentionRequest;
import com.genace.lifecycle.RetentionWorkflow;
import com.genace.workflows.TaskQueues;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.client.schedules.ScheduleState;
import io.temporal.client.schedules.ScheduleUpdate;
import java.time.Duration;
import java.util.List;

/**
 * The Temporal Schedule that runs the ledger retention ({@link RetentionWorkflow}) every {@link
 * #INTERVAL}, with the retention days and the allowance window as its runs' input. Every worker
 * creates it at start, or updates it to its own settings when it exists (the last worker started
 * sets them, as with the orphan sweeper's). With 0 days (keep everything) the schedule is kept but
 * paused, its note saying why. Overlapping runs are skipped.
 */
public final class LedgerRetentionSchedule {

  /**
   * A pass deletes up to 100,000 operations (LedgerRetention's bounds): every 15 minutes keeps up
   * with far more than a million operations a day, and each pass is short.
   */
  public static final Duration INTERVAL = Duration.ofMinutes(15);

  private LedgerRetentionSchedule() {}

  /**
   * Creates or updates the schedule.
   *
   * @return {@code created} or {@code updated}, and {@code paused} when it keeps everything
   * @throws RuntimeException from Temporal, for example {@code UNIMPLEMENTED} on a server without
   *     schedules (the Java test server)
   */
  public static String ensure(WorkflowClient client, RetentionRequest request) {
    ScheduleClient schedules =
        ScheduleClient.newInstance(
            client.getWorkflowServiceStubs(),
            ScheduleClientOptions.newBuilder()
                .setNamespace(client.getOptions().getNamespace())
                .setIdentity(client.getOptions().getIdentity())
                .build());
    Schedule schedule = schedule(request);
    String done;
    try {
      schedules.createSchedule(
          RetentionWorkflow.SCHEDULE_ID, schedule, ScheduleOptions.newBuilder().build());
      done = "created";
    } catch (ScheduleAlreadyRunningException exists) {
      schedules
          .getHandle(RetentionWorkflow.SCHEDULE_ID)
          .update(input -> new ScheduleUpdate(schedule));
      done = "updated";
    }
    return request.keepsEverything() ? done + ", paused (keeps everything)" : done;
  }

  static Schedule schedule(RetentionRequest request) {
    return Schedule.newBuilder()
        .setAction(
            ScheduleActionStartWorkflow.newBuilder()
                .setWorkflowType(RetentionWorkflow.class)
                .setArguments(request)
                .setOptions(
                    WorkflowOptions.newBuilder()
                        .setWorkflowId(RetentionWorkflow.WORKFLOW_ID)
                        .setTaskQueue(TaskQueues.OPERATIONS)
                        .setWorkflowRunTimeout(Duration.ofMinutes(30))
                        .build())
                .build())
        .setSpec(
            ScheduleSpec.newBuilder()
                .setIntervals(List.of(new ScheduleIntervalSpec(INTERVAL)))
                .build())
        .setPolicy(
            SchedulePolicy.newBuilder()
                .setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
                .build())
        .setState(
            ScheduleState.newBuilder()
                .setPaused(request.keepsEverything())
                .setNote(
                    request.keepsEverything()
                        ? "GENACE_LEDGER_RETENTION_DAYS=0: the ledger keeps every operation"
                        : "ended operations are deleted "
                            + request.retentionDays()
                            + " days after they ended")
                .build())
        .build();
  }
}
