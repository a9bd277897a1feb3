package com.genace.observation;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.GenaceAuthenticationException;
import com.genace.client.GenaceClient;
import com.genace.client.GenaceException;
import com.genace.client.GenaceRateLimitedException;
import com.genace.client.JobSnapshot;
import com.genace.client.RemoteJobNotFoundException;
import com.genace.ledger.ClaimResult;
import com.genace.ledger.Lease;
import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.ledger.RenewResult;
import com.genace.ledger.WriteResult;
import com.genace.model.FailureTypes;
import com.genace.model.NextAction;
import com.genace.model.ReviewReason;
import com.genace.stats.ActivityStats;
import com.genace.stats.ActivityStats.PollFailure;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long observation, kept for workflows that reached observation before polling observation
 * ({@link ObservationActivitiesImpl}); delete it once no such workflow runs. Observes one remote
 * job per attempt:
 *
 * <ol>
 *   <li>claim the observe lease (a missing remote id sends the operation to review);
 *   <li>GET the job, paced by the {@link PollingPolicy}; heartbeat each poll;
 *   <li>mirror each snapshot through the ledger's permitted transitions;
 *   <li>renew the lease at half-life; if renewal is denied or uncertain, stop writing and fail the
 *       attempt so that Temporal retries it under a new claim;
 *   <li>return on a terminal status.
 * </ol>
 */
public final class LegacyObservationActivitiesImpl implements LegacyObservationActivities {

  private static final Logger log = LoggerFactory.getLogger(LegacyObservationActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final GenaceClient genace;
  private final String owner;
  private final PollingPolicy policy;
  private final Clock clock;
  private final ActivityStats stats;
  private final RandomGenerator random = new SplittableRandom();

  public LegacyObservationActivitiesImpl(
      OperationsLedger ledger,
      GenaceClient genace,
      String owner,
      PollingPolicy policy,
      Clock clock,
      ActivityStats stats) {
    this.ledger = ledger;
    this.genace = genace;
    this.owner = owner;
    this.policy = policy;
    this.clock = clock;
    this.stats = stats;
  }

  @Override
  public ObservationResult observe(String operationId) {
    ClaimResult claim = ledger.claim(operationId, owner, NextAction.OBSERVE);
    if (claim instanceof ClaimResult.MovedToReview moved) {
      return ObservationResult.inReview(
          ReviewReason.parse(moved.reviewReason()), null, moved.reviewReason());
    }
    if (claim instanceof ClaimResult.NotAcquired notAcquired) {
      return fromCurrentState(operationId, notAcquired);
    }
    ClaimResult.Acquired acquired = (ClaimResult.Acquired) claim;
    Lease lease = acquired.lease();
    String remoteJobId = acquired.remoteJobId().orElseThrow();
    boolean finished = false;
    try {
      ObservationResult result = pollUntilTerminal(lease, remoteJobId);
      finished = true;
      return result;
    } finally {
      if (!finished) {
        releaseQuietly(lease);
      }
    }
  }

  private ObservationResult pollUntilTerminal(Lease lease, String remoteJobId) {
    Duration delay = policy.initialDelay();
    int failures = 0;
    String lastStatus = "unknown";
    while (true) {
      Activity.getExecutionContext().heartbeat(lastStatus);
      JobSnapshot snapshot;
      try {
        snapshot = genace.get(remoteJobId);
        failures = 0;
      } catch (RemoteJobNotFoundException e) {
        stats.pollFailed(PollFailure.NOT_FOUND);
        ledger.openReview(lease, ReviewReason.REMOTE_JOB_NOT_FOUND.wire(), e.getMessage());
        return ObservationResult.inReview(
            ReviewReason.REMOTE_JOB_NOT_FOUND, remoteJobId, e.getMessage());
      } catch (GenaceRateLimitedException e) {
        stats.pollFailed(PollFailure.RATE_LIMITED);
        lease = pause(lease, longer(e.retryAfter(), delay));
        continue;
      } catch (GenaceAuthenticationException e) {
        stats.pollFailed(PollFailure.UNAUTHORIZED);
        throw e; // a configuration problem: Temporal keeps retrying with backoff
      } catch (GenaceException e) {
        stats.pollFailed(PollFailure.ERROR);
        failures++;
        if (failures >= policy.maxFailures()) {
          throw e;
        }
        log.warn("poll of {} failed ({}), retrying: {}", remoteJobId, failures, e.getMessage());
        lease = pause(lease, delay);
        delay = policy.next(delay);
        continue;
      }
      stats.polled(snapshot.status());
      lastStatus = snapshot.status().wire();
      WriteResult written =
          ledger.recordSnapshot(
              lease,
              snapshot.status(),
              JSON.valueToTree(snapshot).toString(),
              snapshot.errorMessage());
      if (written == WriteResult.DENIED) {
        throw ApplicationFailure.newFailure(
            "observe lease of "
                + lease.operationId()
                + " was lost; observing again under a new claim",
            FailureTypes.LEASE_LOST);
      }
      if (snapshot.status().isTerminal()) {
        return ObservationResult.terminal(snapshot.status(), remoteJobId, snapshot.errorMessage());
      }
      lease = pause(lease, delay);
      delay = policy.next(delay);
    }
  }

  /** Sleeps a jittered delay, then renews the lease if half of it has run out. */
  private Lease pause(Lease lease, Duration delay) {
    try {
      Thread.sleep(policy.jittered(delay, random).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("observation interrupted", "Interrupted");
    }
    Duration left = Duration.between(clock.instant(), lease.until());
    if (left.compareTo(ledger.leaseDuration().dividedBy(2)) > 0) {
      return lease;
    }
    RenewResult renewed = ledger.renew(lease);
    if (renewed instanceof RenewResult.Renewed ok) {
      return ok.lease();
    }
    throw ApplicationFailure.newFailure(
        "observe lease of " + lease.operationId() + " could not be renewed (" + renewed + ")",
        FailureTypes.LEASE_LOST);
  }

  private static Duration longer(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private ObservationResult fromCurrentState(
      String operationId, ClaimResult.NotAcquired notAcquired) {
    OperationRow row = notAcquired.current();
    return LedgerOutcome.of(row)
        .orElseThrow(
            () ->
                ApplicationFailure.newFailure(
                    "operation "
                        + operationId
                        + " cannot be observed now (phase "
                        + row.phase().wire()
                        + ", lease held by "
                        + row.leaseOwner().orElse("nobody")
                        + ")",
                    "ObserveLeaseHeld"));
  }

  private void releaseQuietly(Lease lease) {
    try {
      ledger.release(lease);
    } catch (RuntimeException e) {
      log.warn(
          "could not release the observe lease of {}: {}", lease.operationId(), e.getMessage());
    }
  }
}
