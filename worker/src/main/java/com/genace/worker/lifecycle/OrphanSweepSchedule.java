package com.genace.worker.lifecycle;

import com.genace.lifecycle.SweepWorkflow;
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
import io.temporal.client.schedules.ScheduleUpdate;
import java.time.Duration;
import java.util.List;

/**
 * The Temporal Schedule that runs the orphan sweeper ({@link SweepWorkflow}) every interval. Every
 * worker creates it at start, or updates it to its own interval when it exists: Temporal runs it,
 * whichever workers are up, and nothing of ours coordinates the fleet. Overlapping runs are
 * skipped, so a slow sweep is never doubled.
 */
public final class OrphanSweepSchedule {

  private OrphanSweepSchedule() {}

  /**
   * Creates or updates the schedule.
   *
   * @return {@code created} or {@code updated}
   * @throws RuntimeException from Temporal, for example {@code UNIMPLEMENTED} on a server without
   *     schedules (the Java test server)
   */
  public static String ensure(WorkflowClient client, Duration interval) {
    ScheduleClient schedules =
        ScheduleClient.newInstance(
            client.getWorkflowServiceStubs(),
            ScheduleClientOptions.newBuilder()
                .setNamespace(client.getOptions().getNamespace())
                .setIdentity(client.getOptions().getIdentity())
                .build());
    Schedule schedule = schedule(interval);
    try {
      schedules.createSchedule(
          SweepWorkflow.SCHEDULE_ID, schedule, ScheduleOptions.newBuilder().build());
      return "created";
    } catch (ScheduleAlreadyRunningException exists) {
      schedules.getHandle(SweepWorkflow.SCHEDULE_ID).update(input -> new ScheduleUpdate(schedule));
      return "updated";
    }
  }

  static Schedule schedule(Duration interval) {
    return Schedule.newBuilder()
        .setAction(
            ScheduleActionStartWorkflow.newBuilder()
                .setWorkflowType(SweepWorkflow.class)
                .setOptions(
                    WorkflowOptions.newBuilder()
                        .setWorkflowId(SweepWorkflow.WORKFLOW_ID)
                        .setTaskQueue(TaskQueues.OPERATIONS)
                        .setWorkflowRunTimeout(Duration.ofMinutes(30))
                        .build())
                .build())
        .setSpec(
            ScheduleSpec.newBuilder()
                .setIntervals(List.of(new ScheduleIntervalSpec(interval)))
                .build())
        .setPolicy(
            SchedulePolicy.newBuilder()
                .setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
                .build())
        .build();
  }
}
