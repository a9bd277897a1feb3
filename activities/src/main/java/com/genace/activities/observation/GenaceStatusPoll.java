package com.genace.activities.observation;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.genace.GenaceAuthenticationException;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceException;
import com.genace.activities.genace.GenaceRateLimitedException;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.RemoteJobNotFoundException;
import com.genace.activities.leasing.HeldLease;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.ObservedSnapshot;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.stats.ActivityStats.PollFailure;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.model.FailureTypes;
import com.genace.workflows.model.RemoteStatus;
import com.genace.workflows.observation.ObservationResult;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status poll that asks Genace: one GET of the remote job, its snapshot recorded in the ledger.
 * One poll:
 *
 * <ol>
 *   <li>starts from the operation's ledger row (no write): a phase past observation ends it, and
 *       the durable remote job id is what is polled, so any retry or takeover resumes from it;
 *   <li>GETs the job once, without holding a lease (overlapping reads create nothing);
 *   <li>only if the snapshot is newer than the stored one: records it with {@link
 *       OperationsLedger#recordObservedSnapshot}, one statement that takes the observe lease's
 *       place (it applies only while the operation observes that job and no other owner holds a
 *       live lease, under a new revision, leaving no lease); a 404 opens the review under a claimed
 *       lease, released in a {@code finally} so a failed poll never leaves it behind;
 *   <li>returns on a terminal status (or a review); otherwise fails with an {@code
 *       ApplicationFailure} of type {@link #NOT_TERMINAL_YET} or {@link #POLL_FAILED} whose next
 *       retry delay is the pacing: {@link PollingPolicy} backoff by poll number, jitter, and
 *       Genace's {@code Retry-After} or a live lease's expiry when longer. Malformed answers and
 *       other failed reads are paced the same way. {@link #poll(DuePoll)} turns that delay into the
 *       next poll on the schedule.
 * </ol>
 *
 * <p>Each poll is counted in {@code genace_polls_total}. A poll that records a snapshot costs one
 * write besides its schedule's; only the rare 404 or missing job id holds a lease, from its claim
 * to its write. Unchanged snapshots write nothing.
 */
public final class GenaceStatusPoll implements StatusPoll {

  /** A poll's outcome: the remote job is still queued or running; poll again after the delay. */
  static final String NOT_TERMINAL_YET = "GenaceJobNotTerminal";

  /** A poll's outcome: the status could not be read or recorded now; poll again after the delay. */
  static final String POLL_FAILED = "GenacePollFailed";

  private static final Logger log = LoggerFactory.getLogger(GenaceStatusPoll.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final GenaceClient genace;
  private final String owner;
  private final PollingPolicy policy;
  private final Clock clock;
  private final ActivityStats stats;

  /**
   * @param owner the owner this worker's snapshot writes and observe leases are recorded under
   */
  public GenaceStatusPoll(
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
  public PollStep poll(DuePoll claimed) {
    try {
      return PollStep.tell(poll(claimed.row(), claimed.pollCount() + 1));
    } catch (ApplicationFailure pollAgain) {
      if (claimed.row().phase() != Phase.OBSERVING) {
        ledger.polls().finish(claimed);
        return PollStep.NOTHING;
      }
      return PollStep.after(
          Optional.ofNullable(pollAgain.getNextRetryDelay()).orElse(policy.initialDelay()));
    }
  }

  @Override
  public Optional<ObservationResult> overtaken(DuePoll claimed) {
    return LedgerOutcome.of(ledger.get(claimed.row().operationId()));
  }

  /**
   * A terminal snapshot already ended the schedule when it was recorded: only a review, or an
   * outcome the claim found already in the ledger, costs a statement here.
   */
  @Override
  public void told(DuePoll claimed, ObservationResult outcome) {
    boolean snapshotEndedIt = claimed.row().phase() == Phase.OBSERVING && !outcome.endedInReview();
    if (!snapshotEndedIt) {
      ledger.polls().finish(claimed);
    }
  }

  /** One poll, the {@code attempt}-th (from 1) of this observation. */
  ObservationResult poll(String operationId, int attempt) {
    return guarded(operationId, attempt, () -> pollOnce(ledger.get(operationId), attempt));
  }

  /** One poll of the operation as {@code row} shows it, the {@code attempt}-th (from 1). */
  ObservationResult poll(OperationRow row, int attempt) {
    return guarded(row.operationId(), attempt, () -> pollOnce(row, attempt));
  }

  private ObservationResult guarded(
      String operationId, int attempt, Supplier<ObservationResult> poll) {
    try {
      return poll.get();
    } catch (ApplicationFailure failure) {
      throw failure;
    } catch (RuntimeException e) {
      // The ledger or the network failed: nothing is known to be wrong with the job itself.
      throw pollAgain(
          POLL_FAILED, attempt, Duration.ZERO, "poll of " + operationId + " failed: " + e, e);
    }
  }

  private ObservationResult pollOnce(OperationRow row, int attempt) {
    String operationId = row.operationId();
    if (row.phase() != Phase.OBSERVING) {
      return ended(row, attempt);
    }
    Optional<String> remoteJobId = row.remoteJobId().filter(id -> !id.isBlank());
    if (remoteJobId.isEmpty()) {
      // The claim sends an observation without a remote job id to review.
      return underLease(
          operationId,
          attempt,
          null,
          held -> {
            throw pollAgain(POLL_FAILED, attempt, Duration.ZERO, "no remote job id to observe");
          });
    }
    String jobId = remoteJobId.get();
    JobSnapshot snapshot;
    try {
      snapshot = genace.get(jobId);
    } catch (RemoteJobNotFoundException e) {
      stats.pollFailed(PollFailure.NOT_FOUND);
      return underLease(operationId, attempt, jobId, held -> notFound(held, jobId, e, attempt));
    } catch (GenaceRateLimitedException e) {
      stats.pollFailed(PollFailure.RATE_LIMITED);
      throw pollAgain(POLL_FAILED, attempt, e.retryAfter(), "rate limited polling " + jobId);
    } catch (GenaceAuthenticationException e) {
      stats.pollFailed(PollFailure.UNAUTHORIZED);
      log.warn("status poll of {} refused the credentials: check GENACE_API_KEY", jobId);
      throw pollAgain(POLL_FAILED, attempt, Duration.ZERO, e.getMessage());
    } catch (GenaceException e) {
      stats.pollFailed(PollFailure.ERROR);
      log.warn("status poll of {} failed (attempt {}): {}", jobId, attempt, e.getMessage());
      throw pollAgain(POLL_FAILED, attempt, Duration.ZERO, e.getMessage());
    }
    RemoteStatus status = snapshot.status();
    stats.polled(status);
    int storedRank = row.remoteStatus().map(RemoteStatus::rank).orElse(-1);
    if (status.rank() > storedRank) {
      ObservedSnapshot written =
          ledger.recordObservedSnapshot(
              operationId,
              owner,
              jobId,
              status,
              JSON.valueToTree(snapshot).toString(),
              snapshot.errorMessage());
      if (written instanceof ObservedSnapshot.Refused refused) {
        return refused(refused, jobId, status, attempt);
      }
      if (status.isTerminal()) {
        return ObservationResult.terminal(status, snapshot.id(), snapshot.errorMessage());
      }
    } else if (status.isTerminal()) {
      // Terminal, but recorded by someone else meanwhile: the ledger says what follows.
      return ended(ledger.get(operationId), attempt);
    }
    throw pollAgain(NOT_TERMINAL_YET, attempt, Duration.ZERO, "job " + jobId + " " + status.wire());
  }

  /** A snapshot write that did not apply: how the operation ended, or when to poll again. */
  private ObservationResult refused(
      ObservedSnapshot.Refused refused, String jobId, RemoteStatus status, int attempt) {
    OperationRow current = refused.current();
    return switch (refused.reason()) {
      case MOVED_ON -> ended(current, attempt);
      case LEASED -> throw leased(current, attempt);
      case JOB_CHANGED ->
          throw pollAgain(POLL_FAILED, attempt, Duration.ZERO, "the remote job id changed");
      case CONTENDED ->
          throw pollAgain(
              POLL_FAILED, attempt, Duration.ZERO, "operation changed during the snapshot write");
      case NOT_NEWER ->
          // Someone else recorded it meanwhile; only a status short of terminal can be
          // not newer while the operation still observes (a terminal one moves it on).
          throw pollAgain(
              NOT_TERMINAL_YET, attempt, Duration.ZERO, "job " + jobId + " " + status.wire());
    };
  }

  private ObservationResult notFound(
      HeldLease held, String jobId, RemoteJobNotFoundException e, int attempt) {
    WriteResult written =
        ledger.openReview(held.lease(), ReviewReason.REMOTE_JOB_NOT_FOUND.wire(), e.getMessage());
    if (written == WriteResult.UNCHANGED) {
      throw pollAgain(POLL_FAILED, attempt, Duration.ZERO, "review of " + jobId + " not opened");
    }
    held.ended(); // opened: the review released it; denied: it was not ours any more
    if (written == WriteResult.DENIED) {
      throw pollAgain(
          FailureTypes.LEASE_LOST, attempt, Duration.ZERO, "observe lease lost before the review");
    }
    log.warn("remote job {} is unknown to Genace: operation goes to review", jobId);
    return ObservationResult.inReview(ReviewReason.REMOTE_JOB_NOT_FOUND, jobId, e.getMessage());
  }

  /**
   * Claims the observe lease and runs {@code work} under it, releasing it afterwards unless a write
   * ended it. When the claim does not acquire, says how the operation ended, or fails the attempt
   * until a live lease (another attempt's) expires.
   */
  private ObservationResult underLease(
      String operationId,
      int attempt,
      String expectedJobId,
      Function<HeldLease, ObservationResult> work) {
    ClaimResult claim = ledger.claim(operationId, owner, NextAction.OBSERVE);
    if (claim instanceof ClaimResult.MovedToReview moved) {
      return ObservationResult.inReview(
          ReviewReason.parse(moved.reviewReason()), expectedJobId, moved.reviewReason());
    }
    if (claim instanceof ClaimResult.NotAcquired notAcquired) {
      if (notAcquired.reason() == ClaimResult.Reason.LEASED) {
        throw leased(notAcquired.current(), attempt);
      }
      return ended(notAcquired.current(), attempt);
    }
    ClaimResult.Acquired acquired = (ClaimResult.Acquired) claim;
    try (HeldLease held = new HeldLease(ledger, acquired.lease())) {
      if (!acquired.remoteJobId().equals(Optional.ofNullable(expectedJobId))) {
        throw pollAgain(POLL_FAILED, attempt, Duration.ZERO, "the remote job id changed");
      }
      return work.apply(held);
    }
  }

  /** Another attempt's live lease: poll again once it has expired, not sooner. */
  private ApplicationFailure leased(OperationRow row, int attempt) {
    return pollAgain(
        POLL_FAILED,
        attempt,
        row.leaseUntil().map(this::until).orElse(Duration.ZERO),
        "observe lease held by " + row.leaseOwner().orElse("another worker"));
  }

  @Override
  public ObservationResult ended(OperationRow row, int attempt) {
    return LedgerOutcome.of(row)
        .orElseThrow(
            () ->
                pollAgain(
                    POLL_FAILED,
                    attempt,
                    Duration.ZERO,
                    "operation "
                        + row.operationId()
                        + " cannot be observed now ("
                        + row.phase().wire()
                        + ")"));
  }

  private ApplicationFailure pollAgain(String type, int attempt, Duration atLeast, String why) {
    return pollAgain(type, attempt, atLeast, why, null);
  }

  /**
   * A retryable failure whose next retry delay paces the next poll: {@link #poll(DuePoll)} turns it
   * into the next poll on the schedule, and an attempt of the waiting activity that throws it is
   * retried by Temporal after that delay. A job still running is the expected case, so its failure
   * is benign, which the SDK logs at debug level and counts as no failure.
   */
  private ApplicationFailure pollAgain(
      String type, int attempt, Duration atLeast, String why, Throwable cause) {
    Duration backoff = policy.afterPoll(attempt, ThreadLocalRandom.current()); // many poll threads
    Duration delay = atLeast.compareTo(backoff) > 0 ? atLeast : backoff;
    boolean stillRunning = NOT_TERMINAL_YET.equals(type);
    ApplicationFailure failure =
        ApplicationFailure.newBuilder()
            .setType(type)
            .setMessage(why + "; polling again in " + delay.toMillis() + " ms")
            .setNextRetryDelay(delay)
            .setCause(cause)
            .setCategory(
                stillRunning
                    ? ApplicationErrorCategory.BENIGN
                    : ApplicationErrorCategory.UNSPECIFIED)
            .build();
    if (stillRunning) {
      // The usual answer of every poll, and the place it is raised says nothing: without a stack
      // trace it is a few hundred bytes wherever it is kept or logged, not several kilobytes.
      failure.setStackTrace(new StackTraceElement[0]);
    }
    return failure;
  }

  private Duration until(Instant instant) {
    Duration left = Duration.between(clock.instant(), instant);
    return left.isNegative() ? Duration.ZERO : left;
  }
}
