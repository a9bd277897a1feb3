package com.genace.client.model;

import java.util.Locale;

/** How an operator resolves an uncertainty review. */
public enum ReviewDecision {
  /** Genace did create the job: observe it by the given remote job id. */
  FOUND_REMOTE_JOB(Phase.OBSERVING),
  /** Genace provably did not create a job: dispatch again under a new revision. */
  NOT_SUBMITTED(Phase.PENDING),
  /** Give up on the operation; it ends {@code abandoned}. */
  ABANDON(Phase.ABANDONED);

  private final Phase nextPhase;

  ReviewDecision(Phase nextPhase) {
    this.nextPhase = nextPhase;
  }

  /** The phase the operation moves to once the decision is recorded. */
  public Phase nextPhase() {
    return nextPhase;
  }

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
