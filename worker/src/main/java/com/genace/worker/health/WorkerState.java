package com.genace.worker.health;

import com.genace.controls.DispatchCircuit;
import com.genace.controls.DispatchPause;
import com.genace.dispatch.DispatchGate;
import com.genace.dispatch.DispatchListener;
import com.genace.ledger.Lease;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker's local safety facts and the one rule that turns them into readiness. Probes read it
 * without doing I/O, so they are always fast; a background loop refreshes the ledger facts.
 *
 * <p>Dispatch needs: started, not draining, not paused (locally or fleet-wide), the ledger
 * reachable, and a free dispatch slot. Observation needs only: started, not draining, the ledger
 * reachable. A Genace outage affects neither, nor liveness.
 */
public final class WorkerState implements DispatchGate, DispatchListener {

  /** The last ledger check: whether it answered, when, and the error if not. */
  public record LedgerCheck(boolean ok, Instant at, String error) {}

  /** A pause requested on this worker alone. */
  public record LocalPause(String by, String reason, Instant since) {}

  private final Clock clock;
  private final int maxDispatches;
  private volatile String startupProblem = "starting";
  private volatile boolean draining;
  private volatile Optional<LocalPause> localPause = Optional.empty();
  private volatile Optional<DispatchPause> fleetPause = Optional.empty();
  private volatile LedgerCheck ledger;
  private final AtomicInteger activeDispatches = new AtomicInteger();
  private final AtomicInteger activeOperations = new AtomicInteger();
  private final Map<String, Lease> sending = new ConcurrentHashMap<>();

  public WorkerState(Clock clock, int maxDispatches) {
    this.clock = clock;
    this.maxDispatches = maxDispatches;
    this.ledger = new LedgerCheck(false, clock.instant(), "not checked yet");
  }

  public Readiness readiness() {
    Optional<String> shared = sharedBlocker();
    Optional<String> dispatch = shared.or(this::dispatchBlocker);
    if (dispatch.isEmpty() && activeDispatches.get() >= maxDispatches) {
      dispatch = Optional.of("capacity_exhausted");
    }
    return new Readiness(
        dispatch.isEmpty(), shared.isEmpty(), dispatch.or(() -> shared).orElse("ready"));
  }

  /** For the dispatch activity, just before a POST: capacity is not a reason to hold it back. */
  @Override
  public Optional<String> closedReason() {
    return sharedBlocker().or(this::dispatchBlocker);
  }

  private Optional<String> sharedBlocker() {
    if (startupProblem != null) {
      return Optional.of(startupProblem);
    }
    if (draining) {
      return Optional.of("draining");
    }
    if (!ledger.ok()) {
      return Optional.of("ledger_unavailable");
    }
    return Optional.empty();
  }

  private Optional<String> dispatchBlocker() {
    // An open circuit names the account's problem (genace_auth_refused...), not a plain pause.
    return fleetPause
        .map(DispatchCircuit::reasonOf)
        .or(() -> localPause.map(p -> "dispatch_paused"));
  }

  public boolean started() {
    return startupProblem == null;
  }

  public Optional<String> startupProblem() {
    return Optional.ofNullable(startupProblem);
  }

  /** Why startup has not finished yet, or null once it has. */
  public void startupProblem(String problem) {
    this.startupProblem = problem;
  }

  public void startDraining() {
    draining = true;
  }

  public boolean draining() {
    return draining;
  }

  public void pauseLocally(String by, String reason) {
    localPause = Optional.of(new LocalPause(by, reason, clock.instant()));
  }

  public void resumeLocally() {
    localPause = Optional.empty();
  }

  public Optional<LocalPause> localPause() {
    return localPause;
  }

  public Optional<DispatchPause> fleetPause() {
    return fleetPause;
  }

  public void ledgerChecked(boolean ok, String error, Optional<DispatchPause> pause) {
    ledger = new LedgerCheck(ok, clock.instant(), error);
    if (ok) {
      fleetPause = pause;
    }
  }

  public LedgerCheck lastLedgerCheck() {
    return ledger;
  }

  public AtomicInteger activeDispatches() {
    return activeDispatches;
  }

  public AtomicInteger activeOperations() {
    return activeOperations;
  }

  @Override
  public void sending(Lease lease) {
    sending.put(lease.operationId(), lease);
  }

  @Override
  public void finished(Lease lease) {
    sending.remove(lease.operationId(), lease);
  }

  /** Dispatches whose POST may be in flight right now, with the leases they hold. */
  public List<Lease> postsInFlight() {
    return List.copyOf(sending.values());
  }
}
