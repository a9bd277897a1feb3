package com.genace.worker.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.client.TaskQueues;
import com.genace.workflows.lifecycle.RetentionRequest;
import com.genace.workflows.lifecycle.RetentionWorkflow;
import com.genace.workflows.lifecycle.SweepWorkflow;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What the sweeper's and the retention's schedules ask Temporal for; that a real server creates and
 * updates them is {@code RealTemporalLifecycleTest}'s.
 */
class FleetSchedulesTest {

  @Test
  void the_sweep_starts_its_workflow_every_interval_without_input_and_skips_overlaps() {
    Schedule schedule = OrphanSweepSchedule.schedule(Duration.ofSeconds(90));

    ScheduleActionStartWorkflow action = startsWorkflow(schedule, "SweepWorkflow");
    assertThat(action.getOptions().getWorkflowId()).isEqualTo(SweepWorkflow.WORKFLOW_ID);
    assertThat(action.getArguments().getSize()).isZero();
    assertThat(intervalOf(schedule)).isEqualTo(Duration.ofSeconds(90));
    assertThat(schedule.getState()).isNull();
  }

  @Test
  void retention_runs_every_15_minutes_with_its_request() {
    Schedule schedule = LedgerRetentionSchedule.schedule(new RetentionRequest(30, 86_400));

    ScheduleActionStartWorkflow action = startsWorkflow(schedule, "RetentionWorkflow");
    assertThat(action.getOptions().getWorkflowId()).isEqualTo(RetentionWorkflow.WORKFLOW_ID);
    assertThat(action.getArguments().getSize()).isEqualTo(1);
    assertThat(intervalOf(schedule)).isEqualTo(LedgerRetentionSchedule.INTERVAL);
    assertThat(schedule.getState().isPaused()).isFalse();
    assertThat(schedule.getState().getNote())
        .isEqualTo("ended operations are deleted 30 days after they ended");
  }

  @Test
  void retention_that_keeps_everything_is_paused_and_says_why() {
    Schedule schedule = LedgerRetentionSchedule.schedule(new RetentionRequest(0, 86_400));

    assertThat(schedule.getState().isPaused()).isTrue();
    assertThat(schedule.getState().getNote())
        .isEqualTo("GENACE_LEDGER_RETENTION_DAYS=0: the ledger keeps every operation");
  }

  private static ScheduleActionStartWorkflow startsWorkflow(Schedule schedule, String type) {
    assertThat(schedule.getAction()).isInstanceOf(ScheduleActionStartWorkflow.class);
    ScheduleActionStartWorkflow action = (ScheduleActionStartWorkflow) schedule.getAction();
    assertThat(action.getWorkflowType()).isEqualTo(type);
    WorkflowOptions options = action.getOptions();
    assertThat(options.getTaskQueue()).isEqualTo(TaskQueues.OPERATIONS);
    assertThat(options.getWorkflowRunTimeout()).isEqualTo(Duration.ofMinutes(30));
    assertThat(schedule.getPolicy().getOverlap())
        .isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    return action;
  }

  private static Duration intervalOf(Schedule schedule) {
    assertThat(schedule.getSpec().getIntervals()).hasSize(1);
    ScheduleIntervalSpec interval = schedule.getSpec().getIntervals().get(0);
    return interval.getEvery();
  }
}
