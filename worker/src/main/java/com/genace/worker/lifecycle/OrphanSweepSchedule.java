package com.genace.worker.lifecycle;

import com.genace.workflows.lifecycle.SweepWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.Schedule;
import java.time.Duration;

/**
 * The Temporal Schedule that runs the orphan sweeper ({@link SweepWorkflow}) every interval, as
 * every {@link FleetSchedule} runs: created or updated by every worker at start, overlapping runs
 * skipped.
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
    return FleetSchedule.createOrUpdate(client, SweepWorkflow.SCHEDULE_ID, schedule(interval));
  }

  static Schedule schedule(Duration interval) {
    return FleetSchedule.every(interval, SweepWorkflow.class, SweepWorkflow.WORKFLOW_ID).build();
  }
}
