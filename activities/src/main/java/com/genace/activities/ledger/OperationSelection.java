package com.genace.activities.ledger;

import com.genace.client.model.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Which unfinished operations a bulk command acts on: one unfinished phase, and optionally the
 * review's reason, the account, the model, a minimum age and a creation window ({@code
 * createdAfter} inclusive, {@code createdBefore} exclusive). {@code withoutCancelRequest} leaves
 * out the operations whose cancel was requested already (a bulk cancel's second run).
 */
public record OperationSelection(
    Phase phase,
    Optional<String> reviewReason,
    Optional<String> account,
    Optional<String> model,
    Duration olderThan,
    Optional<Instant> createdAfter,
    Optional<Instant> createdBefore,
    boolean withoutCancelRequest) {

  public OperationSelection {
    if (phase == null || phase.isTerminal()) {
      throw new IllegalArgumentException("a selection takes one unfinished phase");
    }
    if (olderThan == null || olderThan.isNegative()) {
      throw new IllegalArgumentException("the age must not be negative");
    }
  }

  /** The same selection in another phase. */
  public OperationSelection inPhase(Phase other) {
    return new OperationSelection(
        other,
        reviewReason,
        account,
        model,
        olderThan,
        createdAfter,
        createdBefore,
        withoutCancelRequest);
  }

  /**
   * Whether {@code row}, read again, still belongs to this selection (its phase may have moved).
   */
  public boolean matches(OperationRow row) {
    return row.phase() == phase
        && reviewReason.map(r -> row.reviewReason().map(r::equals).orElse(false)).orElse(true)
        && account.map(row.account()::equals).orElse(true)
        && model.map(row.model()::equals).orElse(true)
        && createdAfter.map(a -> !row.createdAt().isBefore(a)).orElse(true)
        && createdBefore.map(row.createdAt()::isBefore).orElse(true)
        && (!withoutCancelRequest || row.cancelRequestedAt().isEmpty());
  }

  /** A place in a walk over a selection: past this operation, in (created_at, id) order. */
  public record After(Instant createdAt, String operationId) {
    public static After of(OperationRow row) {
      return new After(row.createdAt(), row.operationId());
    }
  }
}
