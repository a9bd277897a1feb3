package com.genace.worker.health;

import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.controls.DispatchPause;
import com.genace.activities.dispatch.DispatchGate;
import com.genace.activities.dispatch.DispatchListener;
import com.genace.activities.ledger.AccountRestrictions;
import com.genace.activities.ledger.Lease;
import com.genace.activities.lifecycle.OrphanListener;
import com.genace.activities.lifecycle.RetentionListener;
import com.genace.worker.fleet.ConfigVersion;
import com.genace.workflows.lifecycle.RetentionReport;
import com.genace.workflows.lifecycle.SweepReport;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker's local safety facts and the one rule that turns them into readiness. Probes read it
 * without doing I/O, so they are always fast; a background loop refreshes the ledger facts.
 *
 * <p>Dispatch needs: started, not draining, the ledger reachable, Temporal accepting this worker's
 * task polls, not paused (locally or fleet-wide), this worker's configuration version the fleet's
 * current one, and a free dispatch slot. Observation needs only: started, not draining, the ledger
 * reachable, Temporal accepting task polls. A Genace outage affects neither, nor liveness.
 */
public final class WorkerState
    implements DispatchGate, DispatchListener, OrphanListener, RetentionListener {

  /** The last ledger check: whether it answered, when, and the error if not. */
  public record LedgerCheck(boolean ok, Instant at, String error) {}

  /** The last sweep pass this worker ran: when it ended and what it did. */
  public record SweepPass(Instant endedAt, SweepReport report) {}

  /** The last retention pass this worker ran: when it ended and what it deleted. */
  public record RetentionPass(Instant endedAt, RetentionReport report) {}

  /** A pause requested on this worker alone. */
  public record LocalPause(String by, String reason, Instant since) {}

  private final Clock clock;
  private final Instant createdAt;
  private final int maxDispatches;
  private final Optional<String> configVersion;
  private volatile Optional<ConfigVersion> fleetConfigVersion = Optional.empty();
  private volatile Optional<String> temporalProblem = Optional.empty();
  private volatile Optional<String> artifactStoreProblem = Optional.empty();
  private volatile Optional<Boolean> spendingGuarded = Optional.empty();
  private volatile String startupProblem = "starting";
  private volatile boolean draining;
  private volatile Optional<LocalPause> localPause = Optional.empty();
  private volatile Optional<DispatchPause> fleetPause = Optional.empty();
  private volatile LedgerCheck ledger;
  private final AtomicInteger activeDispatches = new AtomicInteger();
  private final AtomicInteger activeOperations = new AtomicInteger();
  private final AtomicLong orphansFound = new AtomicLong();
  private volatile String sweepSchedule = "not set up yet";
  private volatile Optional<SweepPass> lastSweepPass = Optional.empty();
  private final AtomicLong retentionDeleted = new AtomicLong();
  private volatile String retentionSchedule = "not set up yet";
  private volatile String fairnessWeights = "not applied yet";
  private volatile List<AccountRestrictions.HeldAccount> heldAccounts = List.of();
  private volatile Optional<RetentionPass> lastRetentionPass = Optional.empty();
  private final Map<String, Lease> sending = new ConcurrentHashMap<>();

  public WorkerState(Clock clock, int maxDispatches) {
    this(clock, maxDispatches, Optional.empty());
  }

  /**
   * @param configVersion the version this worker was deployed with, if any
   */
  public WorkerState(Clock clock, int maxDispatches, Optional<String> configVersion) {
    this.clock = clock;
    this.createdAt = clock.instant();
    this.maxDispatches = maxDispatches;
    this.configVersion = configVersion;
    this.ledger = new LedgerCheck(false, clock.instant(), "not checked yet");
  }

  public Readiness readiness() {
    Optional<String> shared = sharedBlocker();
    Optional<String> dispatch = shared.or(this::dispatchBlocker);
    if (dispatch.isEmpty() && activeDispatches.get() >= maxDispatches) {
      dispatch = Optional.of("capacity_exhausted");
    }
    // Delivery needs the artifact store; a POST does not (its render waits in Genace meanwhile).
    Optional<String> observation =
        shared.or(() -> artifactStoreProblem.map(problem -> "artifact_store_unavailable"));
    return new Readiness(
        dispatch.isEmpty(), observation.isEmpty(), dispatch.or(() -> observation).orElse("ready"));
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
    if (temporalProblem.isPresent()) {
      return Optional.of("temporal_polls_failing");
    }
    return Optional.empty();
  }

  private Optional<String> dispatchBlocker() {
    // An open circuit names the account's problem (genace_auth_refused...), not a plain pause.
    Optional<String> paused =
        fleetPause.map(DispatchCircuit::reasonOf).or(() -> localPause.map(p -> "dispatch_paused"));
    if (paused.isPresent()) {
      return paused;
    }
    if (!configVersionCurrent()) {
      return Optional.of("config_version_mismatch");
    }
    return Optional.empty();
  }

  /**
   * Whether this worker's configuration version is the fleet's: true while the fleet has none,
   * false when the fleet has one and this worker another or none.
   */
  public boolean configVersionCurrent() {
    return fleetConfigVersion
        .map(fleet -> configVersion.equals(Optional.of(fleet.version())))
        .orElse(true);
  }

  public Optional<String> configVersion() {
    return configVersion;
  }

  public Optional<ConfigVersion> fleetConfigVersion() {
    return fleetConfigVersion;
  }

  /** Why Temporal refuses or fails this worker's task polls now (empty while they succeed). */
  public void temporalPolls(Optional<String> problem) {
    temporalProblem = problem;
  }

  /** Why the artifact store does not answer its bounded check now (empty while it does). */
  public void artifactStore(Optional<String> problem) {
    artifactStoreProblem = problem;
  }

  /**
   * Whether a {@code not_submitted} needs a signed approval (an approver is registered); returns
   * whether that changed, so the caller logs each change once.
   */
  public boolean spendingGuarded(boolean guarded) {
    Optional<Boolean> before = spendingGuarded;
    spendingGuarded = Optional.of(guarded);
    return !before.equals(spendingGuarded);
  }

  /** Empty until the ledger was read. */
  public Optional<Boolean> spendingGuarded() {
    return spendingGuarded;
  }

  public Optional<String> artifactStoreProblem() {
    return artifactStoreProblem;
  }

  public Optional<String> temporalProblem() {
    return temporalProblem;
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

  /** A failed ledger check: the fleet switches keep their last known values. */
  public void ledgerFailed(String error) {
    ledger = new LedgerCheck(false, clock.instant(), error);
  }

  /** A ledger check that read the fleet's switches: its pause and configuration version. */
  public void ledgerChecked(Optional<DispatchPause> pause, Optional<ConfigVersion> fleetVersion) {
    fleetPause = pause;
    fleetConfigVersion = fleetVersion;
    ledger = new LedgerCheck(true, clock.instant(), null);
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

  /** Counts the orphans this worker's sweeps put in review (for /status and metrics). */
  @Override
  public void orphanFound(String operationId, String closeStatus) {
    orphansFound.incrementAndGet();
  }

  public AtomicLong orphansFound() {
    return orphansFound;
  }

  /** Keeps what the last sweep pass run on this worker did (for /status and metrics). */
  @Override
  public void passEnded(SweepReport report) {
    lastSweepPass = Optional.of(new SweepPass(clock.instant(), report));
  }

  /** The last sweep pass run on this worker, if any (the schedule's runs go to any worker). */
  public Optional<SweepPass> lastSweepPass() {
    return lastSweepPass;
  }

  /**
   * Seconds since the last sweep pass on this worker ended or, before one ran here, since this
   * worker started: the smallest across the fleet says how long no worker has swept, and a fleet
   * just started does not look as if it had never swept.
   */
  public double secondsSinceSweepPass() {
    return secondsSince(lastSweepPass.map(SweepPass::endedAt).orElse(createdAt));
  }

  /** As {@link #secondsSinceSweepPass}, for the ledger's retention passes. */
  public double secondsSinceRetentionPass() {
    return secondsSince(lastRetentionPass.map(RetentionPass::endedAt).orElse(createdAt));
  }

  private double secondsSince(Instant at) {
    return Math.max(0, clock.millis() - at.toEpochMilli()) / 1000.0;
  }

  /** Whether this worker applied the ledger's fairness weights to Temporal at start, or why not. */
  public void fairnessWeights(String status) {
    this.fairnessWeights = status;
  }

  public String fairnessWeights() {
    return fairnessWeights;
  }

  /** The accounts whose dispatch a 429 holds now, fleet-wide, as last read from the ledger. */
  public void heldAccounts(List<AccountRestrictions.HeldAccount> held) {
    this.heldAccounts = List.copyOf(held);
  }

  public List<AccountRestrictions.HeldAccount> heldAccounts() {
    return heldAccounts;
  }

  /** Whether this worker set up the sweeper's schedule, or why not. */
  public void sweepSchedule(String status) {
    this.sweepSchedule = status;
  }

  public String sweepSchedule() {
    return sweepSchedule;
  }

  /** Keeps what the last retention pass run on this worker did (for /status and metrics). */
  @Override
  public void retentionPassEnded(RetentionReport report) {
    retentionDeleted.addAndGet(report.operationsDeleted());
    lastRetentionPass = Optional.of(new RetentionPass(clock.instant(), report));
  }

  /** The last retention pass run on this worker, if any (the schedule's runs go to any worker). */
  public Optional<RetentionPass> lastRetentionPass() {
    return lastRetentionPass;
  }

  /** Ended operations this worker's retention passes deleted since it started. */
  public AtomicLong retentionDeleted() {
    return retentionDeleted;
  }

  /** Whether this worker set up the retention's schedule, or why not. */
  public void retentionSchedule(String status) {
    this.retentionSchedule = status;
  }

  public String retentionSchedule() {
    return retentionSchedule;
  }
}
