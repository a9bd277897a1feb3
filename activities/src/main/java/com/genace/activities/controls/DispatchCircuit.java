package com.genace.activities.controls;

import com.genace.activities.genace.AccountProblem;
import java.util.Optional;

/**
 * The fleet-wide circuit in front of the paid POST. When Genace refuses the account itself (a
 * revoked key, an empty credit balance), every other queued operation would be refused the same
 * way; the circuit stops them being sent, and none fails for it. It is the durable fleet-wide
 * dispatch pause of {@link WorkerControls}, set with the problem as its reason:
 *
 * <ol>
 *   <li>{@link #open}: a dispatch refused for the account pauses dispatch fleet-wide, with {@code
 *       changed_by = circuit:<worker>} and {@code reason = <problem>: <detail>}, unless dispatch is
 *       paused already (an operator's pause is never replaced).
 *   <li>{@link #closedReason}: read from the database before every POST, so that no worker sends
 *       one after the trip is committed, without waiting for its readiness loop.
 *   <li>{@link #close}: the circuit's own pause is lifted only if it is still the one that was
 *       read. {@link CircuitProbe} does so for {@code genace_auth_refused} once the free model list
 *       answers; Genace offers no credit balance to read, so {@code genace_credits_exhausted} waits
 *       for an operator's {@code ops resume-dispatch}, after which the next dispatch is the trial
 *       (a 402 opens the circuit again at once).
 * </ol>
 */
public final class DispatchCircuit {

  /** For tools and tests without a database: never opens, never holds a POST back. */
  public static final DispatchCircuit NONE = new DispatchCircuit(null, "none");

  /** Prefix of {@code changed_by} for a pause the circuit set: tells it from an operator's. */
  public static final String PAUSED_BY_PREFIX = "circuit:";

  /** The reason a gate gives for a fleet-wide pause that is not the circuit's. */
  static final String DISPATCH_PAUSED = "dispatch_paused";

  /** An open circuit: the problem, and the pause that holds dispatch back. */
  public record Trip(AccountProblem problem, DispatchPause pause) {

    /** The worker whose POST was refused. */
    public String trippedBy() {
      return pause.pausedBy().substring(PAUSED_BY_PREFIX.length());
    }

    /** The refusal as Genace worded it. */
    public String detail() {
      String reason = pause.reason();
      int colon = reason.indexOf(": ");
      return colon < 0 ? "" : reason.substring(colon + 2);
    }
  }

  private final WorkerControls controls;
  private final String workerId;

  public DispatchCircuit(WorkerControls controls, String workerId) {
    this.controls = controls;
    this.workerId = workerId;
  }

  /**
   * Opens the circuit for the whole fleet.
   *
   * @param detail the refusal, free of secrets
   * @return true if this call opened it; false if dispatch was paused already
   */
  public boolean open(AccountProblem problem, String detail) {
    if (controls == null) {
      return false;
    }
    return controls.pauseDispatchIfRunning(
        PAUSED_BY_PREFIX + workerId, problem.wire() + ": " + detail);
  }

  /** The open circuit, if the fleet-wide pause is the circuit's. */
  public Optional<Trip> current() {
    return controls == null
        ? Optional.empty()
        : controls.dispatchPause().flatMap(DispatchCircuit::tripOf);
  }

  /**
   * Why no POST may leave now, read fresh from the database: the circuit's problem ({@code
   * genace_auth_refused}, {@code genace_credits_exhausted}), {@code dispatch_paused} for an
   * operator's pause, or empty.
   */
  public Optional<String> closedReason() {
    if (controls == null) {
      return Optional.empty();
    }
    return controls.dispatchPause().map(DispatchCircuit::reasonOf);
  }

  /**
   * Closes the circuit if its pause is still {@code trip}'s.
   *
   * @return true if this call closed it
   */
  public boolean close(Trip trip, String why) {
    return controls != null
        && controls.resumeDispatchIfUnchanged(trip.pause(), PAUSED_BY_PREFIX + workerId, why);
  }

  /** The trip a fleet-wide pause stands for, if the circuit set it. */
  public static Optional<Trip> tripOf(DispatchPause pause) {
    if (pause.pausedBy() == null
        || !pause.pausedBy().startsWith(PAUSED_BY_PREFIX)
        || pause.reason() == null) {
      return Optional.empty();
    }
    int colon = pause.reason().indexOf(':');
    String wire = colon < 0 ? pause.reason() : pause.reason().substring(0, colon);
    return AccountProblem.fromWire(wire).map(problem -> new Trip(problem, pause));
  }

  /** What a fleet-wide pause tells a dispatcher: the circuit's problem, or a plain pause. */
  public static String reasonOf(DispatchPause pause) {
    return tripOf(pause).map(trip -> trip.problem().wire()).orElse(DISPATCH_PAUSED);
  }
}
