package com.genace.worker.health;

/**
 * What this worker may take now, by kind of work, and the first reason it may not. The status
 * document's readiness fields are built from it.
 */
public record Readiness(boolean acceptingDispatch, boolean acceptingObservation, String reason) {

  /** Ready for some kind of work: what {@code /readyz} answers 200 for. */
  public boolean acceptingAny() {
    return acceptingDispatch || acceptingObservation;
  }
}
