package com.genace.activities.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.leasing.HeldLease;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.RenewResult;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.DeliveredArtifact;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.delivery.DeliveryActivities;
import com.genace.workflows.delivery.DeliveryResult;
import com.genace.workflows.model.FailureTypes;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a succeeded job's outputs:
 *
 * <ol>
 *   <li>claim the deliver lease; read the stored snapshot's outputs;
 *   <li>for each output, skip it if the store already holds its key with the same size and SHA-256,
 *       else stream it from Genace into the store, which checks size and SHA-256 before the object
 *       appears; while bytes flow (downloaded from Genace or uploaded to the store), heartbeat and
 *       renew the lease at half-life;
 *   <li>record the manifest (each object's key, URI, size and SHA-256) under the lease.
 * </ol>
 *
 * <p>A failed attempt records why on the row ({@code delivery_failure}, shown by {@code ops show}),
 * for instance the expected and actual SHA-256 of bytes that keep arriving wrong, and Temporal
 * retries it. A delivery that has been going on longer than {@link WaitLimits#delivering()} logs
 * one ERROR line for the operation (at a failed attempt or a retry's start), so that a retry that
 * never ends is not silent.
 */
public final class DeliveryActivitiesImpl implements DeliveryActivities {

  private static final Logger log = LoggerFactory.getLogger(DeliveryActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How often a delivery under way tells Temporal it lives: well within the activity's heartbeat
   * timeout (60 s), so that a frozen worker's delivery is still retried within a minute. A shorter
   * heartbeat timeout gets a heartbeat every third of it ({@link #heartbeatEvery}).
   */
  static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(10);

  private final OperationsLedger ledger;
  private final GenaceClient genace;
  private final ArtifactStore store;
  private final String owner;
  private final Clock clock;
  private final WaitLimits limits;

  public DeliveryActivitiesImpl(
      OperationsLedger ledger,
      GenaceClient genace,
      ArtifactStore store,
      String owner,
      Clock clock) {
    this(ledger, genace, store, owner, clock, WaitLimits.DEFAULT);
  }

  /**
   * @param limits how long a delivery may go on before its ERROR line ({@link
   *     WaitLimits#delivering()})
   */
  public DeliveryActivitiesImpl(
      OperationsLedger ledger,
      GenaceClient genace,
      ArtifactStore store,
      String owner,
      Clock clock,
      WaitLimits limits) {
    this.limits = limits;
    this.ledger = ledger;
    this.genace = genace;
    this.store = store;
    this.owner = owner;
    this.clock = clock;
  }

  @Override
  public DeliveryResult deliver(String operationId) {
    ClaimResult claim = ledger.claim(operationId, owner, NextAction.DELIVER);
    if (claim instanceof ClaimResult.NotAcquired notAcquired) {
      return fromCurrentState(operationId, notAcquired.current());
    }
    ClaimResult.Acquired acquired = (ClaimResult.Acquired) claim;
    try (HeldLease held = new HeldLease(ledger, acquired.lease())) {
      if (attempt() > 1) {
        // A retry: the attempt before may have died without a word (a crash, a heartbeat timeout).
        reportIfTooLong(operationId);
      }
      try {
        return deliver(operationId, acquired, held);
      } catch (RuntimeException failure) {
        recordFailure(acquired.lease(), failure);
        throw failure;
      }
    }
  }

  /**
   * Why this attempt failed, on the row for {@code ops show}; and the ERROR line if the delivery
   * has now gone on too long. Neither may hide the failure itself.
   */
  private void recordFailure(Lease lease, RuntimeException failure) {
    String reason = "attempt " + attempt() + ": " + reason(failure);
    try {
      ledger.recordDeliveryFailure(lease, reason);
      reportIfTooLong(lease.operationId());
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private void reportIfTooLong(String operationId) {
    try {
      ledger.reportWaitingTooLong(operationId, Phase.DELIVERING, limits.delivering());
    } catch (RuntimeException e) {
      log.warn("could not report that {} delivers too long: {}", operationId, e.toString());
    }
  }

  /** The failure as an operator reads it: a mismatch says what was expected and what came. */
  static String reason(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ArtifactMismatchException mismatch) {
        return "artifact mismatch: " + mismatch.getMessage();
      }
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text =
        failure == root
            ? String.valueOf(failure.getMessage())
            : failure.getMessage() + " (cause: " + root + ")";
    return text.length() > MAX_REASON ? text.substring(0, MAX_REASON) + "…" : text;
  }

  private static final int MAX_REASON = 1000;

  /**
   * This attempt's number (from 1), or 1 outside an activity (Temporal's activity test environment
   * says 0).
   */
  private static int attempt() {
    try {
      return Math.max(1, Activity.getExecutionContext().getInfo().getAttempt());
    } catch (RuntimeException outsideAnActivity) {
      return 1;
    }
  }

  /**
   * Under the deliver lease, which a failure hands back so that the retry claims at once. The claim
   * returned the remote job id and the stored snapshot, whose outputs are copied.
   */
  private DeliveryResult deliver(String operationId, ClaimResult.Acquired claimed, HeldLease held) {
    Lease lease = held.lease();
    String remoteJobId = claimed.remoteJobId().orElseThrow();
    JobSnapshot snapshot = readSnapshot(operationId, claimed.snapshotJson().orElseThrow());
    LeaseKeeper keeper = new LeaseKeeper(lease);
    List<DeliveredArtifact> artifacts = new ArrayList<>();
    int copied = 0;
    for (int i = 0; i < snapshot.outputs().size(); i++) {
      JobOutput output = snapshot.outputs().get(i);
      String key = ArtifactKeys.of(operationId, remoteJobId, i, output.contentType());
      if (!store.holds(key, output.bytes(), output.sha256())) {
        copy(output, key, keeper);
        copied++;
      }
      artifacts.add(
          new DeliveredArtifact(
              key, store.locate(key), output.bytes(), output.sha256(), output.contentType()));
      keeper.alive();
    }
    WriteResult written = ledger.recordDelivered(keeper.lease(), DeliveryManifest.json(artifacts));
    if (written != WriteResult.UNCHANGED) {
      held.ended(); // applied: the delivered transition released it; denied: no longer ours
    }
    if (written != WriteResult.APPLIED) {
      throw ApplicationFailure.newFailure(
          "deliver lease of " + operationId + " was lost before the manifest was recorded",
          FailureTypes.LEASE_LOST);
    }
    log.info(
        "operation {}: {} artifact(s) delivered, {} copied now",
        operationId,
        artifacts.size(),
        copied);
    return new DeliveryResult(artifacts, copied);
  }

  private void copy(JobOutput output, String key, LeaseKeeper keeper) {
    LeaseKeeper.Meanwhile meanwhile = keeper.meanwhile();
    try (ArtifactContent content =
        new ArtifactContent(
            genace.openOutput(output),
            key,
            output.bytes(),
            output.sha256(),
            output.contentType(),
            bytesSoFar -> keeper.alive())) {
      store.put(key, content);
    } finally {
      meanwhile.close();
    }
  }

  /**
   * Keeps the activity and its lease alive while bytes move, downloaded from Genace or uploaded to
   * the store: a large artifact, or a slow link to either, can take longer than the heartbeat
   * timeout and the lease. Heartbeats every {@link #HEARTBEAT_EVERY} from the start of the
   * delivery, so that a delivery shorter than that (most of them) sends none: each costs a call to
   * Temporal. Renews at half-life; a denied or uncertain renewal stops the copy, and Temporal
   * retries under a new claim (what was stored stays and is skipped).
   *
   * <p>The bytes the copy reads and the store's client reads to send are reported ({@link
   * ArtifactContent}), but not all progress is visible there: the kernel takes megabytes of a
   * request body into its socket buffer at once and sends them at the link's pace, then the store
   * waits for its answer. So while the store's put is under way, a timer does the same every {@link
   * #tickEvery}. Every wait of that put has a deadline of its own (the download's stall and overall
   * deadlines, S3's stall and request timeouts), so a put that hangs still ends, and a frozen
   * process stops the timer with everything else.
   */
  private final class LeaseKeeper {
    private final Duration heartbeatEvery = heartbeatEvery();
    private final ActivityExecutionContext context = currentContext();
    private Lease lease;
    private Instant lastBeat = clock.instant();

    /** What the timer met (a lost lease, a cancelled activity), for the activity's thread. */
    private RuntimeException lost;

    LeaseKeeper(Lease lease) {
      this.lease = lease;
    }

    synchronized Lease lease() {
      return lease;
    }

    /**
     * Called as bytes move, on the activity's thread.
     *
     * @throws RuntimeException a lease that could not be renewed, here or by the timer
     */
    synchronized void alive() {
      if (lost != null) {
        throw lost;
      }
      beatAndRenew();
    }

    /** Ticks every {@link #tickEvery} until closed. */
    Meanwhile meanwhile() {
      long period = tickEvery().toMillis();
      ScheduledFuture<?> ticking =
          TIMER.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
      return () -> ticking.cancel(false);
    }

    private synchronized void tick() {
      if (lost != null) {
        return;
      }
      try {
        beatAndRenew();
      } catch (RuntimeException e) {
        lost = e;
      }
    }

    /** Often enough for both the heartbeat and the renewal at half-life. */
    private Duration tickEvery() {
      Duration quarterLease = ledger.leaseDuration().dividedBy(4);
      Duration every = heartbeatEvery.compareTo(quarterLease) < 0 ? heartbeatEvery : quarterLease;
      return every.compareTo(MIN_TICK) < 0 ? MIN_TICK : every;
    }

    private void beatAndRenew() {
      Instant now = clock.instant();
      if (!now.isBefore(lastBeat.plus(heartbeatEvery))) {
        if (context != null) {
          context.heartbeat(null);
        }
        lastBeat = now;
      }
      Duration left = Duration.between(clock.instant(), lease.until());
      if (left.compareTo(ledger.leaseDuration().dividedBy(2)) > 0) {
        return;
      }
      RenewResult renewed = ledger.renew(lease);
      if (!(renewed instanceof RenewResult.Renewed ok)) {
        throw ApplicationFailure.newFailure(
            "deliver lease of " + lease.operationId() + " could not be renewed (" + renewed + ")",
            FailureTypes.LEASE_LOST);
      }
      lease = ok.lease();
    }

    /** Stops the timer; closing throws nothing. */
    interface Meanwhile extends AutoCloseable {
      @Override
      void close();
    }
  }

  /** The shortest period of a keeper's timer. */
  private static final Duration MIN_TICK = Duration.ofMillis(100);

  /**
   * One thread ticks for every delivery under way: each tick is at most a heartbeat (buffered by
   * the SDK) and, at half-life, one ledger statement.
   */
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "delivery-lease-keeper");
            thread.setDaemon(true);
            return thread;
          });

  /** This attempt's context, to heartbeat from the timer's thread; null outside an activity. */
  private static ActivityExecutionContext currentContext() {
    try {
      return Activity.getExecutionContext();
    } catch (RuntimeException outsideAnActivity) {
      return null;
    }
  }

  /**
   * {@link #HEARTBEAT_EVERY}, or a third of this attempt's heartbeat timeout when that is shorter;
   * outside an activity (Temporal's activity test environment has no timeout), the former.
   */
  private static Duration heartbeatEvery() {
    try {
      Duration timeout = Activity.getExecutionContext().getInfo().getHeartbeatTimeout();
      Duration third = timeout.dividedBy(3);
      return third.isZero() || third.compareTo(HEARTBEAT_EVERY) >= 0 ? HEARTBEAT_EVERY : third;
    } catch (RuntimeException outsideAnActivity) {
      return HEARTBEAT_EVERY;
    }
  }

  private static JobSnapshot readSnapshot(String operationId, String snapshotJson) {
    try {
      return JSON.readValue(snapshotJson, JobSnapshot.class);
    } catch (IOException e) {
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "stored snapshot of " + operationId + " is unreadable", "CorruptSnapshot", e);
    }
  }

  private static DeliveryResult fromCurrentState(String operationId, OperationRow row) {
    if (row.phase() == Phase.DELIVERED) {
      return new DeliveryResult(
          DeliveryManifest.parse(row.deliveryManifestJson().orElse("{\"artifacts\":[]}")), 0);
    }
    throw ApplicationFailure.newFailure(
        "operation "
            + operationId
            + " cannot be delivered now (phase "
            + row.phase().wire()
            + ", lease held by "
            + row.leaseOwner().orElse("nobody")
            + ")",
        "DeliverLeaseHeld");
  }
}
