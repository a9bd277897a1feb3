package com.genace.workflows.observation;

import io.temporal.activity.ActivityInterface;

/**
 * Observation by the ledger's poll schedule: the workflow waits in one activity, and the workers'
 * poll loops read the schedule, GET the job when it is due, record newer snapshots in the ledger,
 * and complete the waiting activity once the job has ended. It never creates a render.
 */
@ActivityInterface
public interface ObservationActivities {

  /**
   * Puts the operation on the poll schedule that every worker's poll loop reads and polls it once;
   * a job already terminal (or the operation sent to review) returns at once. Otherwise it returns
   * without completing, and the loop that later sees the end completes this activity with the
   * outcome: the terminal status, or the review it opened. Each later poll is a ledger claim and a
   * GET, with no Temporal call. An attempt that finds the operation past observation returns the
   * ledger's outcome at once.
   */
  ObservationResult awaitRemoteJob(String operationId);
}
