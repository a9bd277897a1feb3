package com.genace.workflows.model;

/** Types of the {@code ApplicationFailure}s that activities throw and the workflow may inspect. */
public final class FailureTypes {

  /**
   * The activity's lease was lost (taken over, expired, or its renewal uncertain) before it could
   * write: nothing was written, and a retry claims again under a new revision.
   */
  public static final String LEASE_LOST = "LeaseLost";

  /**
   * The workflow's start input breaks the contract (docs/contract/start-input.schema.json): the
   * workflow fails at once, before anything is registered or dispatched; the message names the
   * field. Not retryable: the same input would fail the same way.
   */
  public static final String INVALID_REQUEST = "InvalidRequest";

  /**
   * The workflow refused a review resolution (the operation is not in review, or the decision is
   * incomplete or contradicted by Genace): nothing changed. Not retryable: the update is refused
   * with its reason, which {@code describe} lists.
   */
  public static final String RESOLUTION_REFUSED = "ResolutionRefused";

  /**
   * The ledger holds this operation id with another request (model, account or input): a reused id
   * whose workflow history is gone while its row is kept. Nothing is dispatched; the workflow fails
   * with the differences. Not retryable: the row does not change.
   */
  public static final String OPERATION_CONFLICT = "OperationConflict";

  /**
   * The ledger shows the operation ended (failed, abandoned, delivered) before this step; the
   * failure's first detail is the ended phase's wire name. Not retryable: the workflow ends the way
   * the ledger says.
   */
  public static final String OPERATION_ENDED = "OperationEnded";

  private FailureTypes() {}
}
