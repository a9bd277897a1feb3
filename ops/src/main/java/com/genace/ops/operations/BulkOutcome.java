package com.genace.ops.operations;

/**
 * What happened to one operation of a bulk command: applied; refused (by the workflow, or with no
 * workflow to ask: counted by reason); or skipped because it no longer matches (done meanwhile, or
 * by an earlier run).
 */
sealed interface BulkOutcome {

  record Applied(String answer) implements BulkOutcome {}

  record Refused(String reason) implements BulkOutcome {}

  record Skipped(String why) implements BulkOutcome {}

  /** Temporal or the database could not be asked: counted as refused, and a row of them stops. */
  record Failed(String error) implements BulkOutcome {}
}
