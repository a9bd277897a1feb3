package com.genace.workflows.lifecycle;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One pass of the ledger retention, started by the Temporal Schedule {@link #SCHEDULE_ID} (see
 * {@code LedgerRetentionSchedule} in the worker), which every worker creates or updates at start
 * with its {@code GENACE_LEDGER_RETENTION_DAYS}.
 */
@WorkflowInterface
public interface RetentionWorkflow {

  String SCHEDULE_ID = "genace-ledger-retention";

  /** The id prefix of the schedule's runs (Temporal appends the scheduled time). */
  String WORKFLOW_ID = "genace-ledger-retention";

  @WorkflowMethod
  RetentionReport applyRetention(RetentionRequest request);
}
