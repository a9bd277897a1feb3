package com.genace.worker.lifecycle;

import com.genace.workflows.lifecycle.RetentionRequest;
import com.genace.workflows.lifecycle.RetentionWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleState;
import java.time.Duration;

/**
 * The Temporal Schedule that runs the ledger retention ({@link RetentionWorkflow}) every {@link
 * #INTERVAL}, with the retention days and the allowance window as its runs' input, as every {@link
 * FleetSchedule} runs: created or updated by every worker at start (the last worker started sets
 * them, as with the orphan sweeper's), overlapping runs skipped. With 0 days (keep everything) the
 * schedule is kept but paused, its note saying why.
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
    String done =
        FleetSchedule.createOrUpdate(client, RetentionWorkflow.SCHEDULE_ID, schedule(request));
    return request.keepsEverything() ? done + ", paused (keeps everything)" : done;
  }

  static Schedule schedule(RetentionRequest request) {
    return FleetSchedule.every(
            INTERVAL, RetentionWorkflow.class, RetentionWorkflow.WORKFLOW_ID, request)
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
