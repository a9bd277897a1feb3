package com.genace.activities.ledger;

import java.util.Optional;

/** The outcome of {@link OperationsLedger#claim}. A database error is thrown, never returned. */
public sealed interface ClaimResult {

  /**
   * The action is ours under a new revision until the lease expires. The claim also returns what
   * the action needs, so the caller does not read the row again: the remote job id, the model and
   * account, for a dispatch claim the stored request JSON, and for a deliver claim the stored
   * snapshot JSON.
   */
  record Acquired(
      Lease lease,
      Optional<String> remoteJobId,
      String model,
      String account,
      Optional<String> requestJson,
      Optional<String> snapshotJson)
      implements ClaimResult {}

  /**
   * The claim found an operation that must not proceed automatically (a dispatch that may have sent
   * a POST, or an observation without a remote job id) and moved it to review instead.
   */
  record MovedToReview(String reviewReason, long revision) implements ClaimResult {}

  /** Someone else holds the lease, or the operation does not need this action now. */
  record NotAcquired(Reason reason, OperationRow current) implements ClaimResult {}

  enum Reason {
    /** Another owner's lease on this action has not expired (by the database's clock). */
    LEASED,
    /** The operation's next action is a different one (or its phase does not allow it). */
    NOT_ELIGIBLE
  }
}
