package com.genace.workflows;

import com.genace.client.CarriedState;
import com.genace.client.GenerationRequest;
import com.genace.client.Step;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.dispatch.DispatchActivities;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.time.Duration;
import java.util.Optional;

/**
 * Dispatches until the outcome decides the next step: accepted observes the remote job; refused
 * ends {@code failed}; not sent or rate limited waits and dispatches again; unknown (or a dispatch
 * activity that never reported back) opens a review, unless the ledger shows that the attempt never
 * reached its POST (then it counts as not sent); {@value #MAX_NOT_SENT_ATTEMPTS} attempts in a row
 * that provably sent nothing open a review too.
 *
 * <p>A dispatch turned away by a paused, draining or over-allowance dispatcher is not an attempt:
 * it is not counted and waits briefly before dispatching again. The POST cannot be taken back: a
 * cancel request waits for the recorded outcome of an attempt a worker started, cancels one still
 * waiting in its queue (Temporal then never hands it out), and no attempt is scheduled after it.
 *
 * <p>Waits in a row back off to {@link #MAX_WAIT} (a hint such as Genace's {@code Retry-After} is
 * the least each waits), the phase stays {@code pending} for the attempts that follow a wait (no
 * upsert per turn), and a long run continues as new after a wait ({@link RunChain}).
 */
final class DispatchStep {

  /** After this many attempts that provably sent nothing, an operator decides. */
  static final int MAX_NOT_SENT_ATTEMPTS = 5;

  static final Duration MAX_NOT_SENT_BACKOFF = Duration.ofMinutes(1);

  /**
   * How long a dispatch turned away by a closed gate waits before trying again. Short, so that it
   * leaves within seconds of a resume; cheap, because the gate turns it away before any claim.
   */
  static final Duration PAUSED_RECHECK_INTERVAL = Duration.ofSeconds(5);

  /**
   * The longest a dispatch waits between attempts when nothing asks for longer: waits in a row
   * double from one second to this, so that a wait of a month costs hundreds of turns, not hundreds
   * of thousands, and an operation leaves within minutes once it may.
   */
  static final Duration MAX_WAIT = Duration.ofMinutes(5);

  private final OperationState operation;
  private final RegistrationStep registration;
  private final Cancellation cancellation;
  private final ReviewStep review;
  private final RunChain chain;

  /** Attempts in a row that provably sent nothing. */
  private int notSent;

  /** Waits in a row, for their backoff. */
  private int waits;

  /** Counters a continued run carried, for its first dispatch; null otherwise. */
  private CarriedState resumed;

  DispatchStep(
      OperationState operation,
      RegistrationStep registration,
      Cancellation cancellation,
      ReviewStep review,
      RunChain chain) {
    this.operation = operation;
    this.registration = registration;
    this.cancellation = cancellation;
    this.review = review;
    this.chain = chain;
  }

  /** A continued run resumes the wait between attempts where the previous run left it. */
  void resume(CarriedState carried) {
    resumed = carried;
  }

  Step dispatchUntilDecided(GenerationRequest request) {
    notSent = resumed == null ? 0 : resumed.notSentInARow();
    waits = resumed == null ? 0 : resumed.waitsInARow();
    resumed = null;
    while (true) {
      String attempt = "dispatch attempt " + (operation.dispatchAttempts() + 1);
      if (waits > 0 || notSent > 0) {
        operation.setPhaseDetails(attempt + " (after waiting)");
      } else {
        operation.setPhase(Phase.SUBMITTING, attempt);
      }
      DispatchResult dispatched = attemptDispatch(request);
      if (dispatched.cancel() != null) {
        // The ledger holds a cancel this run did not accept: it stops the steps as one accepted
        // here would (a review found now waits for its resolution first).
        cancellation.adoptFromLedger(dispatched.cancel());
      }
      if (dispatched.outcome() != DispatchOutcome.PAUSED
          && dispatched.outcome() != DispatchOutcome.ALLOWANCE_EXHAUSTED
          && dispatched.outcome() != DispatchOutcome.CANCELLED) {
        operation.countDispatchAttempt();
      }
      switch (dispatched.outcome()) {
        case ACCEPTED -> {
          operation.recordRemoteJob(dispatched.remoteJobId());
          operation.recordCredits(dispatched.credits());
          if (dispatched.credits() != null && VersionMarkers.creditsAttribute()) {
            operation.showCredits();
          }
          return Step.OBSERVE;
        }
        case REFUSED -> {
          return operation.finish(Phase.FAILED, "refused by Genace: " + dispatched.detail());
        }
        case NOT_SENT -> {
          Optional<Step> gaveUp = afterNothingSent(dispatched.detail());
          if (gaveUp.isPresent()) {
            return gaveUp.get();
          }
        }
        case RATE_LIMITED ->
            waitBeforeDispatch(
                Duration.ofMillis(Math.max(1000, dispatched.retryAfterMillis())),
                "rate limited by Genace (Retry-After "
                    + Math.max(1, dispatched.retryAfterMillis() / 1000)
                    + " s)");
        case PAUSED -> waitBeforeDispatch(PAUSED_RECHECK_INTERVAL, "dispatch paused");
        case ACCOUNT_REFUSED ->
            waitBeforeDispatch(PAUSED_RECHECK_INTERVAL, "Genace refused the account");
        case ALLOWANCE_EXHAUSTED ->
            waitBeforeDispatch(
                Duration.ofMillis(Math.max(1000, dispatched.retryAfterMillis())),
                "waiting for allowance (" + dispatched.detail() + ")");
        case CANCELLED -> throw new CanceledFailure("cancelled before dispatch (in the ledger)");
        case UNKNOWN, IN_REVIEW -> {
          Step next =
              review.open(
                  dispatched.outcome() == DispatchOutcome.UNKNOWN
                      ? ReviewReason.POST_OUTCOME_UNKNOWN
                      : ReviewReason.DISPATCH_INTERRUPTED,
                  dispatched.detail(),
                  dispatched.remoteJobId());
          if (next != Step.DISPATCH) {
            return next;
          }
          // The ledger showed that this attempt never got as far as a POST (its task was lost or
          // it timed out waiting): an attempt that provably sent nothing.
          Optional<Step> gaveUp =
              afterNothingSent("the ledger shows the attempt never reached its POST");
          if (gaveUp.isPresent()) {
            return gaveUp.get();
          }
        }
      }
    }
  }

  /**
   * After an attempt that provably sent nothing: waits before the next one, or, after {@value
   * #MAX_NOT_SENT_ATTEMPTS} in a row, returns the review an operator decides.
   */
  private Optional<Step> afterNothingSent(String detail) {
    if (++notSent >= MAX_NOT_SENT_ATTEMPTS) {
      return Optional.of(review.open(ReviewReason.DISPATCH_NOT_SENT_REPEATEDLY, detail, null));
    }
    waitBeforeDispatch(notSentBackoff(notSent), "not sent: " + detail);
    return Optional.empty();
  }

  private DispatchResult attemptDispatch(GenerationRequest request) {
    boolean first = registration.takeFirstDispatch();
    if (cancellation.requested()) {
      if (first) {
        // The cancellation is recorded in the ledger: the operation must be there first.
        cancellation.runDetached(
            () -> {
              registration.registerNow(request);
              return null;
            });
      }
      // Also on the way to delivering a cancelled render: a cancelled operation never POSTs.
      throw new CanceledFailure("cancelled before dispatch");
    }
    // Cancellable: a cancel request cancels an attempt still in its queue, which Temporal then
    // never hands to a worker; one a worker started runs to its recorded end (the activity does
    // not heartbeat, and its stub waits for the outcome).
    return first ? registerAndDispatchOnce(request) : dispatchOnce(request);
  }

  /**
   * The first attempt: registers the operation and dispatches it, in one activity. It waits at most
   * {@link ActivityStubs#FIRST_DISPATCH_WAIT} for a dispatch worker (none polls while dispatch is
   * paused), so that the operation is in the ledger within seconds whatever dispatch does. When it
   * did not report back, the scheduled registration makes sure the operation is there (registering
   * again changes nothing); an attempt that never started or never registered then gives way to an
   * ordinary one at once, as it sent nothing. Any other failure is read as {@link #dispatchOnce}
   * reads it.
   */
  private DispatchResult registerAndDispatchOnce(GenerationRequest request) {
    try {
      return ActivityStubs.firstDispatch(summary(request), request.dispatchTimeout())
          .registerAndDispatch(request);
    } catch (ActivityFailure failure) {
      // Whatever became of the attempt, the operation must be in the ledger, also for a cancel to
      // record its end there: registered in a scope that a cancel request cannot stop.
      cancellation.runDetached(
          () -> {
            registration.registerNow(request);
            return null;
          });
      if (ActivityFailures.neverStarted(failure)
          || ActivityFailures.cancelledBeforeStart(failure)
          || ActivityFailures.isType(failure, DispatchActivities.NOT_REGISTERED)) {
        if (cancellation.requested()) {
          throw new CanceledFailure("cancelled before dispatch");
        }
        return dispatchOnce(request);
      }
      return notReported(failure);
    }
  }

  private DispatchResult dispatchOnce(GenerationRequest request) {
    try {
      return ActivityStubs.dispatch(summary(request), request.dispatchTimeout())
          .dispatch(operation.operationId());
    } catch (ActivityFailure failure) {
      if (ActivityFailures.cancelledBeforeStart(failure)) {
        throw new CanceledFailure("cancelled before dispatch: the queued attempt never started");
      }
      return notReported(failure);
    }
  }

  private static String summary(GenerationRequest request) {
    return "POST /v1/generations (" + request.model() + ")";
  }

  /** A dispatch attempt that failed rather than answered. */
  private static DispatchResult notReported(ActivityFailure failure) {
    if (ActivityFailures.isType(failure, DispatchActivities.NOTHING_SENT)) {
      return DispatchResult.of(
          DispatchOutcome.NOT_SENT, ((ApplicationFailure) failure.getCause()).getOriginalMessage());
    }
    // A timeout, a crash or any failure after the POST may have left: never retried.
    return DispatchResult.of(
        DispatchOutcome.UNKNOWN,
        "dispatch did not report back: " + ActivityFailures.describe(failure));
  }

  /**
   * Waits before the next attempt, at least {@code hint}; then a long run continues as new here
   * (the last attempt sent nothing, as its recorded outcome says).
   */
  private void waitBeforeDispatch(Duration hint, String why) {
    Duration delay = backoff(hint, ++waits);
    String waiting = why + "; dispatching again in " + delay.toSeconds() + " s";
    operation.setPhase(Phase.PENDING, waiting);
    Timers.sleep(delay, waiting);
    chain.continueIfDue(Step.DISPATCH, notSent, waits, () -> true);
  }

  /** The {@code waitsInARow}-th wait in a row: doubling from 1 s to {@link #MAX_WAIT}. */
  static Duration backoff(Duration hint, int waitsInARow) {
    Duration doubled = Duration.ofSeconds(1L << Math.min(waitsInARow - 1, 20));
    Duration backoff = doubled.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : doubled;
    return hint.compareTo(backoff) > 0 ? hint : backoff;
  }

  private static Duration notSentBackoff(int attempt) {
    Duration backoff = Duration.ofSeconds(1L << Math.min(attempt, 6));
    return backoff.compareTo(MAX_NOT_SENT_BACKOFF) > 0 ? MAX_NOT_SENT_BACKOFF : backoff;
  }
}
