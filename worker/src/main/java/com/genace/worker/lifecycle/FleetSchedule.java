package com.genace.worker.lifecycle;

import com.genace.client.TaskQueues;
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
 * What the fleet's periodic passes (the orphan sweeper's, the ledger retention's) have in common: a
 * Temporal Schedule that starts one workflow on {@code genace-operations} every interval and skips
 * a run while the previous one still runs, so a slow pass is never doubled. Every worker creates it
 * at start, or updates it to its own settings when it exists: Temporal runs it whichever workers
 * are up, the last worker started sets its settings, and nothing of ours coordinates the fleet.
 */
final class FleetSchedule {

  /** A pass is one activity of at most 3 tries of 10 minutes; a run is cut off past this. */
  static final Duration RUN_TIMEOUT = Duration.ofMinutes(30);

  private FleetSchedule() {}

  /**
   * A schedule that starts {@code workflowType} every {@code interval}, its runs' ids prefixed
   * {@code workflowId}; the caller may add a state before building it.
   *
   * @param arguments the workflow's input; none for a workflow without parameters
   */
  static Schedule.Builder every(
      Duration interval, Class<?> workflowType, String workflowId, Object... arguments) {
    ScheduleActionStartWorkflow action =
        ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(workflowType)
            .setArguments(arguments)
            .setOptions(
                WorkflowOptions.newBuilder()
                    .setWorkflowId(workflowId)
                    .setTaskQueue(TaskQueues.OPERATIONS)
                    .setWorkflowRunTimeout(RUN_TIMEOUT)
                    .build())
            .build();
    return Schedule.newBuilder()
        .setAction(action)
        .setSpec(
            ScheduleSpec.newBuilder()
                .setIntervals(List.of(new ScheduleIntervalSpec(interval)))
                .build())
        .setPolicy(
            SchedulePolicy.newBuilder()
                .setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
                .build());
  }

  /**
   * Creates the schedule {@code scheduleId}, or replaces the existing one's settings with {@code
   * schedule}'s.
   *
   * @return {@code created} or {@code updated}
   * @throws RuntimeException from Temporal, for example {@code UNIMPLEMENTED} on a server without
   *     schedules (the Java test server)
   */
  static String createOrUpdate(WorkflowClient client, String scheduleId, Schedule schedule) {
    ScheduleClient schedules =
        ScheduleClient.newInstance(
            client.getWorkflowServiceStubs(),
            ScheduleClientOptions.newBuilder()
                .setNamespace(client.getOptions().getNamespace())
                .setIdentity(client.getOptions().getIdentity())
                .build());
    try {
      schedules.createSchedule(scheduleId, schedule, ScheduleOptions.newBuilder().build());
      return "created";
    } catch (ScheduleAlreadyRunningException exists) {
      schedules.getHandle(scheduleId).update(input -> new ScheduleUpdate(schedule));
      return "updated";
    }
  }
}
