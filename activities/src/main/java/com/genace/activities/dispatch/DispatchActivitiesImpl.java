package com.genace.activities.dispatch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.leasing.HeldLease;
import com.genace.activities.ledger.AccountRestrictions;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.registration.Registration;
import com.genace.activities.stats.ActivityStats;
import com.genace.client.CancelRequest;
import com.genace.client.GenerationRequest;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.dispatch.DispatchActivities;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends an operation's POST at most once per claim:
 *
 * <ol>
 *   <li>check the dispatch gate (pause, drain, the fleet-wide circuit): while it is closed, answer
 *       {@code PAUSED} without claiming, so a paused fleet writes no ledger rows and counts no
 *       attempts; with no allowance, the fleet-wide pause is checked by the claim itself;
 *   <li>claim the dispatch lease (a {@code submitting} operation goes to review instead); reserve
 *       the allowance if there is one; commit {@code submitting} (with no allowance, in the claim's
 *       own statement); check the gate again, for a pause that began meanwhile, and that the claim
 *       is recent enough for the POST's answer to be recorded under the lease ({@link SendWindow});
 *       if either says no, record {@code not_sent};
 *   <li>POST once; record the outcome under the same lease (an outcome the ledger did not take is
 *       reported as {@link OutcomeRecorder#record} says), then settle the allowance; a refusal of
 *       the whole account opens the fleet-wide circuit (part of the gate), so that no worker sends
 *       another doomed POST.
 * </ol>
 *
 * <p>Any failure before step 3 is reported as {@link DispatchActivities#NOTHING_SENT}; after it, as
 * an unknown outcome carrying whatever evidence there is.
 */
public final class DispatchActivitiesImpl implements DispatchActivities {

  private static final Logger log = LoggerFactory.getLogger(DispatchActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How soon a dispatch held by its account's cap tries again: a render ends in seconds. */
  static final Duration AT_CAP_RETRY_AFTER = Duration.ofSeconds(2);

  private final OperationsLedger ledger;
  private final GenaceClient genace;
  private final String owner;
  private final DispatchGate localGate;
  private final DispatchGate gate;
  private final DispatchListener listener;
  private final SpendingAllowance allowance;
  private final ActivityStats stats;
  private final OutcomeRecorder recorder;
  private final SendWindow window;

  /** A monotonic clock in nanoseconds ({@link System#nanoTime}), which tests set. */
  private final LongSupplier nanoTime;

  /** With no listener, allowance, circuit or counts. */
  public DispatchActivitiesImpl(
      OperationsLedger ledger,
      GenaceClient genace,
      String owner,
      DispatchGate gate,
      SendWindow window) {
    this(
        ledger,
        genace,
        owner,
        gate,
        DispatchListener.NONE,
        SpendingAllowance.UNLIMITED,
        DispatchCircuit.NONE,
        ActivityStats.NONE,
        window);
  }

  /** With the default {@link SendWindow} and no listener, allowance, circuit or counts. */
  public DispatchActivitiesImpl(
      OperationsLedger ledger, GenaceClient genace, String owner, DispatchGate gate) {
    this(ledger, genace, owner, gate, SendWindow.DEFAULT);
  }

  /** With the default {@link SendWindow}. */
  public DispatchActivitiesImpl(
      OperationsLedger ledger,
      GenaceClient genace,
      String owner,
      DispatchGate gate,
      DispatchListener listener,
      SpendingAllowance allowance,
      DispatchCircuit circuit,
      ActivityStats stats) {
    this(ledger, genace, owner, gate, listener, allowance, circuit, stats, SendWindow.DEFAULT);
  }

  /**
   * @param circuit opened by a refusal of the account; read before every POST, on top of {@code
   *     gate}, because another worker may have opened it a moment ago
   * @param window how long after its claim a POST may leave: it must match {@code genace}'s read
   *     timeout
   */
  public DispatchActivitiesImpl(
      OperationsLedger ledger,
      GenaceClient genace,
      String owner,
      DispatchGate gate,
      DispatchListener listener,
      SpendingAllowance allowance,
      DispatchCircuit circuit,
      ActivityStats stats,
      SendWindow window) {
    this(
        ledger, genace, owner, gate, listener, allowance, circuit, stats, window, System::nanoTime);
  }

  DispatchActivitiesImpl(
      OperationsLedger ledger,
      GenaceClient genace,
      String owner,
      DispatchGate gate,
      DispatchListener listener,
      SpendingAllowance allowance,
      DispatchCircuit circuit,
      ActivityStats stats,
      SendWindow window,
      LongSupplier nanoTime) {
    this.window = window;
    this.nanoTime = nanoTime;
    this.ledger = ledger;
    this.genace = genace;
    this.owner = owner;
    this.localGate = gate;
    this.gate = () -> gate.closedReason().or(circuit::closedReason);
    this.listener = listener;
    this.allowance = allowance;
    this.stats = stats;
    this.recorder = new OutcomeRecorder(ledger, circuit);
  }

  /**
   * Registers first, whatever the gate says (a paused fleet still records its operations), then
   * {@link #dispatch}es. A registration that failed (but for a request the ledger refuses, which
   * fails as {@link Registration#register} says) is {@link #NOT_REGISTERED}.
   */
  @Override
  public DispatchResult registerAndDispatch(GenerationRequest request) {
    try {
      Registration.register(ledger, request);
    } catch (ApplicationFailure refused) {
      throw refused;
    } catch (RuntimeException e) {
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "registration failed, nothing claimed or sent: " + e.getMessage(), NOT_REGISTERED, e);
    }
    return dispatch(request.operationId());
  }

  @Override
  public DispatchResult dispatch(String operationId) {
    // With no allowance to consult, nothing but the gate stands between claim and POST: claim and
    // commit submitting in one statement, which also refuses while the fleet is paused (so the
    // fleet-wide pause needs no read of its own). Otherwise the operation stays pending while the
    // allowance decides, so that waiting for credits never looks like a dispatch attempt, and the
    // pause is read before anything is written.
    // A cap on an account's renders in flight is decided where the operation becomes
    // submitting, and the account is known only once claimed: while any account has a cap or is
    // held (Genace rate limited its traffic), the claim leaves the operation pending too.
    AccountRestrictions.View restrictions;
    try {
      restrictions = ledger.accounts().restrictions().current();
    } catch (RuntimeException e) {
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "dispatch failed before claiming: " + e.getMessage(), NOTHING_SENT, e);
    }
    boolean submitAtOnce = !allowance.limited() && restrictions.none();
    Optional<String> closedBeforeClaim =
        submitAtOnce ? localGate.closedReason() : gate.closedReason();
    if (closedBeforeClaim.isPresent()) {
      return DispatchResult.of(DispatchOutcome.PAUSED, closedBeforeClaim.get());
    }
    // The lease is counted from before its statement: never later than the database counts it.
    long claimStarted = nanoTime.getAsLong();
    Lease lease = null;
    CreateRequest request;
    String account;
    try {
      ClaimResult claim =
          submitAtOnce
              ? ledger.claimToSubmit(operationId, owner)
              : ledger.claimToPost(operationId, owner);
      if (claim instanceof ClaimResult.MovedToReview moved) {
        return DispatchResult.of(DispatchOutcome.IN_REVIEW, moved.reviewReason());
      }
      if (claim instanceof ClaimResult.NotAcquired notAcquired) {
        return refused(notAcquired);
      }
      ClaimResult.Acquired acquired = (ClaimResult.Acquired) claim;
      lease = acquired.lease();
      account = acquired.account();
      request =
          new CreateRequest(
              acquired.model(), parseInput(acquired.requestJson().orElseThrow()), operationId);
      Optional<AccountRestrictions.Held> accountHeld = restrictions.held(account, operationId);
      if (accountHeld.isPresent()) {
        // Nothing written: the operation stays pending and waits out its account's hold.
        ledger.release(lease);
        return new DispatchResult(
            DispatchOutcome.ALLOWANCE_EXHAUSTED,
            null,
            accountHeld.get().describe(account),
            accountHeld.get().remaining().toMillis());
      }
      SpendingAllowance.Reservation reservation =
          allowance.reserve(operationId, acquired.account(), acquired.model());
      if (!reservation.granted()) {
        ledger.release(lease);
        return new DispatchResult(
            DispatchOutcome.ALLOWANCE_EXHAUSTED,
            null,
            reservation.reason(),
            DispatchAllowance.retryAfter().toMillis());
      }
      WriteResult marked = WriteResult.APPLIED;
      if (restrictions.capped(account)) {
        OperationsLedger.CapCheck check = ledger.markSubmittingWithinCap(lease, account);
        if (check.atCap().isPresent()) {
          // Nothing written: the operation stays pending and waits, as for credits.
          settle(operationId, false);
          ledger.release(lease);
          return new DispatchResult(
              DispatchOutcome.ALLOWANCE_EXHAUSTED,
              null,
              check.atCap().get(),
              AT_CAP_RETRY_AFTER.toMillis());
        }
        marked = check.written();
      } else if (!submitAtOnce) {
        marked = ledger.markSubmitting(lease);
      }
      if (marked != WriteResult.APPLIED) {
        settle(operationId, false);
        Optional<CancelRequest> cancelled = ledger.get(operationId).cancelRequest();
        if (cancelled.isPresent()) {
          // A cancel accepted between the claim and `submitting`: nothing leaves.
          new HeldLease(ledger, lease).close();
          return cancelledResult(cancelled.get());
        }
        return DispatchResult.of(DispatchOutcome.NOT_SENT, "dispatch lease lost before sending");
      }
      // The claim to submit read the fleet-wide pause itself; a limited allowance took a statement
      // or two since the last read.
      Optional<String> closed = submitAtOnce ? localGate.closedReason() : gate.closedReason();
      if (closed.isPresent()) {
        return notSentAfterClaim(lease, DispatchOutcome.PAUSED, closed.get());
      }
      Duration held = Duration.ofNanos(nanoTime.getAsLong() - claimStarted);
      Duration sendWithin = window.sendWithin(ledger.leaseDuration());
      if (held.compareTo(sendWithin) > 0) {
        return notSentAfterClaim(
            lease,
            DispatchOutcome.NOT_SENT,
            "not sent: the dispatch lease was claimed "
                + held.toMillis()
                + " ms ago, and a POST leaves only within "
                + sendWithin.toMillis()
                + " ms of its claim (the lease, less the read timeout and the recording margin)");
      }
    } catch (RuntimeException e) {
      if (lease != null) {
        new HeldLease(ledger, lease).close(); // nothing left: the next dispatch claims at once
      }
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "dispatch failed before sending: " + e.getMessage(), NOTHING_SENT, e);
    }
    log.info("POST for operation {} (revision {})", operationId, lease.revision());
    listener.sending(lease);
    CreateOutcome outcome = genace.create(request);
    stats.posted(outcome);
    try {
      DispatchResult result;
      try {
        result = recorder.record(lease, account, outcome);
        if (result.outcome() == DispatchOutcome.ACCEPTED) {
          // What the ledger committed with the acceptance: the same estimate of the same model.
          long credits = ledger.creditEstimate().costOf(request.model());
          stats.creditsCommitted(account, request.model(), credits);
          result = result.withCredits(credits);
        }
      } catch (RuntimeException e) {
        String evidence = outcome instanceof CreateOutcome.Accepted a ? a.remoteJobId() : null;
        result =
            new DispatchResult(
                DispatchOutcome.UNKNOWN,
                evidence,
                "Genace answered ("
                    + outcome.describe()
                    + ") but recording it failed: "
                    + e.getMessage(),
                0);
      }
      // After the outcome is recorded: settling is bookkeeping, and its failure changes no outcome.
      settle(operationId, mayHaveCreatedJob(outcome));
      return result;
    } finally {
      listener.finished(lease);
    }
  }

  /** Nothing was sent after the claim: recorded, and the allowance released. */
  private DispatchResult notSentAfterClaim(Lease lease, DispatchOutcome outcome, String detail) {
    DispatchResult result = recorder.notSent(lease, outcome, detail, 0);
    settle(lease.operationId(), false);
    return result;
  }

  /** Settles the reservation; a failure is logged, as the reservation stops counting anyway. */
  private void settle(String operationId, boolean spent) {
    try {
      allowance.settle(operationId, spent);
    } catch (RuntimeException e) {
      // A WARN: nobody has to act (the ledger's own alerts say when the database fails).
      log.warn(
          "could not settle the allowance reservation of operation {} ({}): {}; it stops counting"
              + " as in flight once the operation leaves submitting",
          operationId,
          spent ? "spent" : "released",
          e.getMessage());
    }
  }

  /** Whether the render may be charged: the job was accepted, or the outcome is unknown. */
  private static boolean mayHaveCreatedJob(CreateOutcome outcome) {
    return outcome instanceof CreateOutcome.Accepted || outcome instanceof CreateOutcome.Unknown;
  }

  /**
   * The claim took nothing. A pending operation nobody leases was refused for the fleet-wide pause
   * (or the pause was lifted a moment later, and the next attempt sends it).
   */
  private DispatchResult refused(ClaimResult.NotAcquired notAcquired) {
    OperationRow row = notAcquired.current();
    Optional<CancelRequest> cancelled = row.cancelRequest();
    if (cancelled.isPresent() && row.phase() == Phase.PENDING) {
      return cancelledResult(cancelled.get());
    }
    if (notAcquired.reason() == ClaimResult.Reason.NOT_ELIGIBLE
        && row.phase() == Phase.PENDING
        && row.nextAction() == NextAction.DISPATCH) {
      return DispatchResult.of(
          DispatchOutcome.PAUSED, gate.closedReason().orElse("dispatch paused a moment ago"));
    }
    return fromCurrentState(notAcquired).withCancel(cancelled.orElse(null));
  }

  /** A pending operation whose cancel the ledger holds: never claimed, never sent. */
  private static DispatchResult cancelledResult(CancelRequest cancel) {
    return new DispatchResult(
        DispatchOutcome.CANCELLED,
        null,
        "nothing sent: the ledger holds a cancel request (" + cancel.describe() + ")",
        0,
        cancel);
  }

  /** The claim found nothing to dispatch: say what the ledger shows instead. */
  private static DispatchResult fromCurrentState(ClaimResult.NotAcquired notAcquired) {
    OperationRow row = notAcquired.current();
    return switch (row.phase()) {
      case OBSERVING, DELIVERING, DELIVERED ->
          new DispatchResult(DispatchOutcome.ACCEPTED, row.remoteJobId().orElse(null), null, 0);
      case IN_REVIEW ->
          DispatchResult.of(DispatchOutcome.IN_REVIEW, row.reviewReason().orElse("in review"));
      case FAILED, ABANDONED ->
          DispatchResult.of(DispatchOutcome.REFUSED, row.failureReason().orElse("failed"));
      case SUBMITTING ->
          DispatchResult.of(
              DispatchOutcome.UNKNOWN, "another dispatch of this operation holds the lease");
      case PENDING ->
          DispatchResult.of(
              DispatchOutcome.NOT_SENT,
              "dispatch lease held by " + row.leaseOwner().orElse("another worker"));
    };
  }

  private static ObjectNode parseInput(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (JsonProcessingException | ClassCastException e) {
      throw new IllegalStateException("stored input is not a JSON object", e);
    }
  }
}
