package com.genace.workflows.lifecycle;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One pass of the orphan sweeper, started by the Temporal Schedule {@link #SCHEDULE_ID} (see {@code
 * OrphanSweepSchedule} in the worker): finds operations whose ledger row is not terminal while
 * their workflow is closed or missing, and puts each in review.
 */
@WorkflowInterface
public interface SweepWorkflow {

  String SCHEDULE_ID = "genace-orphan-sweeper";

  /** The id prefix of the schedule's runs (Temporal appends the scheduled time). */
  String WORKFLOW_ID = "genace-orphan-sweep";

  @WorkflowMethod
  SweepReport sweep();
}
