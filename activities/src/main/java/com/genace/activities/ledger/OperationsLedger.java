package com.genace.activities.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.db.Sql;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.workflows.lifecycle.CancelRecord;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application-owned operations table. Its state changes are fenced: made under a lease (owner,
 * revision and action), or by a statement that applies only while no other owner holds a live lease
 * ({@link #recordObservedSnapshot}, {@link #sweepToReview}).
 *
 * <p>Every write is one statement in autocommit mode (a claim that acquires nothing, or a renewal
 * or release that is denied, runs one more to say why), bounded by the pool's lock and statement
 * timeouts; no transaction is ever held across a network call. Every decision that depends on time
 * (is a lease live?) is taken by the database's wall clock ({@code clock_timestamp()}), never by
 * this process's clock or the transaction start.
 *
 * <p>Exclusive writes take the {@link Lease} they were claimed under and return a {@link
 * WriteResult}: {@code DENIED} when the owner, revision or action no longer match or the lease has
 * expired (a diagnostic row is kept, the operation row is untouched), {@code UNCHANGED} when the
 * lease is valid but the transition is not permitted from the current state.
 *
 * <p>The history keeps one row per accepted state change and one per denied write. Claims, renewals
 * and releases change no state and leave no row unless they are denied.
 */
public final class OperationsLedger {

  /** A lease long enough for one HTTP exchange with Genace plus its bookkeeping. */
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(45);

  /** Upper bound on rows returned by {@link #list}. */
  public static final int MAX_LIST_LIMIT = 10_000;

  private static final Logger log = LoggerFactory.getLogger(OperationsLedger.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Duration leaseDuration;
  private final LedgerStats stats;
  private final OperationRecords records;
  private final Claims claims;
  private final LeaseWrites leases;
  private final DispatchWrites dispatch;
  private final RemoteJobWrites remoteJob;
  private final ObservationWrites observation;
  private final PollSchedule polls;
  private final ReviewWrites reviews;
  private final LifecycleWrites lifecycle;
  private final SweepCursors sweepCursors;
  private final ReviewEvidenceRecords evidence;
  private final WaitingTooLong waitingTooLong;
  private final LedgerRetention retention;
  private final CreditEstimate credits;
  private final SpendReport spend;
  private final OperationSelections selections;
  private final ApproverRecords approvers;
  private final AccountSettings accounts;
  private final LedgerRecovery recovery;
  private final Sql ledgerSql;

  public OperationsLedger(DataSource dataSource) {
    this(dataSource, DEFAULT_LEASE_DURATION);
  }

  public OperationsLedger(DataSource dataSource, Duration leaseDuration) {
    this(Sql.of(dataSource), leaseDuration, LedgerStats.NONE);
  }

  public OperationsLedger(Sql sql, Duration leaseDuration, LedgerStats stats) {
    this(sql, leaseDuration, stats, CreditEstimate.DEFAULT);
  }

  /**
   * @param credits the estimated credits of a render by model, recorded with each acceptance
   */
  public OperationsLedger(
      Sql sql, Duration leaseDuration, LedgerStats stats, CreditEstimate credits) {
    if (leaseDuration == null || leaseDuration.isNegative() || leaseDuration.isZero()) {
      throw new IllegalArgumentException("lease duration must be positive");
    }
    Sql ledgerSql = sql.as("ledger", LedgerException::of);
    this.leaseDuration = leaseDuration;
    this.stats = stats;
    this.credits = java.util.Objects.requireNonNull(credits, "credits");
    this.spend = new SpendReport(ledgerSql);
    this.records = new OperationRecords(ledgerSql);
    this.claims = new Claims(ledgerSql);
    this.leases = new LeaseWrites(ledgerSql);
    this.dispatch = new DispatchWrites(ledgerSql);
    this.remoteJob = new RemoteJobWrites(ledgerSql);
    this.observation = new ObservationWrites(ledgerSql);
    this.polls = new PollSchedule(ledgerSql, leaseDuration);
    this.reviews = new ReviewWrites(ledgerSql);
    this.lifecycle = new LifecycleWrites(ledgerSql);
    this.sweepCursors = new SweepCursors(ledgerSql);
    this.evidence = new ReviewEvidenceRecords(ledgerSql);
    this.waitingTooLong = new WaitingTooLong(ledgerSql);
    this.retention = new LedgerRetention(ledgerSql);
    this.selections = new OperationSelections(ledgerSql);
    this.recovery = new LedgerRecovery(ledgerSql, evidence, credits, stats);
    this.approvers = new ApproverRecords(ledgerSql);
    this.accounts = new AccountSettings(ledgerSql, System::nanoTime);
    this.ledgerSql = ledgerSql;
  }

  public Duration leaseDuration() {
    return leaseDuration;
  }

  /**
   * The observation's poll schedule: which observing operations are due for a status poll, their
   * claims by the poll loops, and the activities waiting for their outcomes.
   */
  public PollSchedule polls() {
    return polls;
  }

  /** The estimated credits of a render by model, as this ledger commits them. */
  public CreditEstimate creditEstimate() {
    return credits;
  }

  /** What was spent: committed credits by index, and what POSTs of unknown outcome may have. */
  public SpendReport spend() {
    return spend;
  }

  /** Repairs from Temporal's history, and every job id the ledger holds for an operation. */
  public LedgerRecovery recovery() {
    return recovery;
  }

  /** Who may approve a decision that spends again, and the approvals already consumed. */
  public ApproverRecords approvers() {
    return approvers;
  }

  /** Each account's cap on renders in flight. */
  public AccountSettings accounts() {
    return accounts;
  }

  /** Deletes ended operations older than a window, in bounded passes. */
  public LedgerRetention retention() {
    return retention;
  }

  /** Records a new operation in {@code pending}. Idempotent: returns false if it already exists. */
  public boolean create(NewOperation operation) {
    boolean created = records.create(operation, requireJsonObject(operation.inputJson()));
    if (created) {
      stats.transition("created");
    }
    return created;
  }

  public Optional<OperationRow> find(String operationId) {
    Identifiers.requireOperationId(operationId);
    return records.find(operationId);
  }

  /**
   * @throws UnknownOperationException if there is no such operation
   */
  public OperationRow get(String operationId) {
    return find(operationId).orElseThrow(() -> new UnknownOperationException(operationId));
  }

  /** The most recently created operations, optionally only those in one phase. */
  public List<OperationRow> list(Optional<Phase> phase, int limit) {
    return list(OperationQuery.newest(phase, limit)).rows();
  }

  /**
   * One page of operations, in the query's order, and whether more follow.
   *
   * @throws IllegalArgumentException for a limit outside 1..{@value #MAX_LIST_LIMIT} or a negative
   *     age
   * @throws UnknownOperationException when the {@code after} operation does not exist
   */
  public OperationPage list(OperationQuery query) {
    if (query.limit() < 1 || query.limit() > MAX_LIST_LIMIT) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIST_LIMIT);
    }
    if (query.olderThan().isNegative()) {
      throw new IllegalArgumentException("the age must not be negative");
    }
    query.after().ifPresent(this::get);
    return records.list(query);
  }

  /**
   * Every phase's count, terminal ones included. Scans the table: for a one-off summary, not for a
   * timer (the fleet's gauges come from {@link LedgerStatistics}).
   */
  public Map<Phase, Long> countByPhase() {
    return records.countByPhase();
  }

  /**
   * How many operations are in {@code phase}, one that is not terminal: cheap whatever the history
   * (unlike {@link #countByPhase}), for an operator's command.
   */
  public long countUnfinished(Phase phase) {
    if (phase.isTerminal()) {
      throw new IllegalArgumentException("phase " + phase.wire() + " is terminal");
    }
    return records.countUnfinished(phase);
  }

  /**
   * Up to {@code limit} operations of a bulk command's selection, oldest first, past {@code after}
   * (the last row of the previous page; empty for the first): a range of the unfinished index.
   */
  public List<OperationRow> selectPage(
      OperationSelection selection, Optional<OperationSelection.After> after, int limit) {
    if (limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIST_LIMIT);
    }
    return selections.page(selection, after, limit);
  }

  /** How many operations a bulk command's selection holds now (the unfinished index). */
  public long countSelection(OperationSelection selection) {
    return selections.count(selection);
  }

  /** The operation's transitions and denied writes, oldest first. */
  public List<TransitionRow> history(String operationId) {
    Identifiers.requireOperationId(operationId);
    return records.history(operationId);
  }

  /** The remote job ids carried by the operation's denied writes, first seen first. */
  public List<String> jobIdsOfDeniedWrites(String operationId) {
    Identifiers.requireOperationId(operationId);
    return records.jobIdsOfDeniedWrites(operationId);
  }

  /**
   * Tries to take {@code action} on the operation for {@code owner}. A free or expired lease is
   * taken under a new revision; so is the owner's own live lease (a worker never waits on itself,
   * and the new revision fences whatever it still does under the old one).
   *
   * @return {@code Acquired} with a new revision; {@code MovedToReview} when the operation may have
   *     been POSTed already or lacks a remote job id; {@code NotAcquired} otherwise
   * @throws UnknownOperationException if there is no such operation
   * @throws LedgerException if the database could not answer (a separate outcome from not acquired)
   */
  public ClaimResult claim(String operationId, String owner, NextAction action) {
    Identifiers.requireOperationId(operationId);
    Identifiers.requireOwner(owner);
    if (action == null || action == NextAction.NONE) {
      throw new IllegalArgumentException(
          "action must be one of dispatch, observe, deliver, reconcile");
    }
    return acquiredOrRefused(
        operationId, owner, action, claims.claim(operationId, owner, action, leaseDuration));
  }

  /**
   * {@link #claim} for a dispatch that may go on to POST: refused, like every claim that leads to a
   * POST, once the operation's cancel was requested ({@link #requestCancel}).
   */
  public ClaimResult claimToPost(String operationId, String owner) {
    Identifiers.requireOperationId(operationId);
    Identifiers.requireOwner(owner);
    return acquiredOrRefused(
        operationId,
        owner,
        NextAction.DISPATCH,
        claims.claimToPost(operationId, owner, leaseDuration));
  }

  /**
   * Dispatch: {@link #claim} for {@code dispatch} and {@link #markSubmitting} in one statement, for
   * a dispatcher that sends its POST right after. Once acquired the operation is {@code
   * submitting}: if the POST does not leave after all (allowance, pause), record that with {@link
   * #recordNotSent}. Refusals are {@link #claim}'s, and while dispatch is paused fleet-wide an
   * operation that could be claimed otherwise is refused as {@code NOT_ELIGIBLE}, still {@code
   * pending} and unleased: the caller reads the pause to say why.
   */
  public ClaimResult claimToSubmit(String operationId, String owner) {
    Identifiers.requireOperationId(operationId);
    Identifiers.requireOwner(owner);
    Optional<Claims.Claimed> claimed = claims.claimToSubmit(operationId, owner, leaseDuration);
    if (claimed.isPresent()) {
      stats.transition("submitting");
    }
    return acquiredOrRefused(operationId, owner, NextAction.DISPATCH, claimed);
  }

  private ClaimResult acquiredOrRefused(
      String operationId, String owner, NextAction action, Optional<Claims.Claimed> claimed) {
    if (claimed.isPresent()) {
      Claims.Claimed c = claimed.get();
      Lease lease = new Lease(operationId, owner, c.revision(), action, c.leaseUntil());
      LogFields.lease(lease, c.remoteJobId());
      return new ClaimResult.Acquired(
          lease, c.remoteJobId(), c.model(), c.account(), c.requestJson(), c.snapshotJson());
    }
    Claims.Refusal refusal =
        claims
            .explainOrDivert(operationId, owner, action)
            .orElseThrow(() -> new UnknownOperationException(operationId));
    if (refusal instanceof Claims.Diverted diverted) {
      stats.transition("review_opened");
      log.warn(
          "operation {} moved to review instead of {}: {}",
          operationId,
          action.wire(),
          diverted.reviewReason());
      return new ClaimResult.MovedToReview(diverted.reviewReason(), diverted.revision());
    }
    Claims.Standing standing = (Claims.Standing) refusal;
    return new ClaimResult.NotAcquired(
        standing.leased() ? ClaimResult.Reason.LEASED : ClaimResult.Reason.NOT_ELIGIBLE,
        standing.row());
  }

  /**
   * Extends the lease, bound to the owner and revision it was claimed under.
   *
   * @return {@code Denied} when the lease is no longer ours; {@code Uncertain} when the statement's
   *     outcome is unknown (for example its response was lost): the caller must stop exclusive
   *     writes until it claims again
   */
  public RenewResult renew(Lease lease) {
    requireLease(lease);
    FenceOutcome outcome;
    try {
      outcome = leases.renew(lease, leaseDuration);
    } catch (LedgerException e) {
      log.warn(
          "lease renewal for operation {} (revision {}) has an unknown outcome: {}",
          lease.operationId(),
          lease.revision(),
          e.getMessage());
      return new RenewResult.Uncertain(e.getMessage());
    }
    if (outcome.result("renewed", lease) == WriteResult.APPLIED) {
      return new RenewResult.Renewed(lease.renewedUntil(outcome.leaseUntil().orElseThrow()));
    }
    denied("renewed", lease);
    return new RenewResult.Denied();
  }

  /** Gives the action up so another worker may claim it at once (for example when draining). */
  public WriteResult release(Lease lease) {
    requireLease(lease);
    return finish("released", lease, leases.release(lease));
  }

  /** Dispatch: records that a POST is about to leave. Must commit before anything is sent. */
  public WriteResult markSubmitting(Lease lease) {
    requireAction(lease, NextAction.DISPATCH);
    return finish("submitting", lease, dispatch.markSubmitting(lease, details().toString()));
  }

  /** {@link #markSubmitting}'s result, or why nothing was written: the account is at its cap. */
  public record CapCheck(WriteResult written, Optional<String> atCap) {}

  /**
   * Dispatch: {@link #markSubmitting} unless the operation's account is at its cap of renders in
   * flight ({@link AccountSettings}), decided across the fleet: under the account's settings row,
   * locked, so two workers never both take its last place. At the cap nothing is written and the
   * lease stays the caller's, to release.
   */
  public CapCheck markSubmittingWithinCap(Lease lease, String account) {
    requireAction(lease, NextAction.DISPATCH);
    String details = details().toString();
    record Decided(Optional<String> atCap, FenceOutcome outcome) {}
    Decided decided =
        ledgerSql.inTransaction(
            AccountSettings.LOCK_CAP,
            transaction -> {
              Optional<String> atCap = AccountSettings.atCap(transaction, account);
              return atCap.isPresent()
                  ? new Decided(atCap, null)
                  : new Decided(
                      atCap, new DispatchWrites(transaction).markSubmitting(lease, details));
            });
    return decided.atCap().isPresent()
        ? new CapCheck(WriteResult.UNCHANGED, decided.atCap())
        : new CapCheck(finish("submitting", lease, decided.outcome()), Optional.empty());
  }

  /** Dispatch: Genace accepted the POST; the operation moves to observation of that job. */
  public WriteResult recordAccepted(Lease lease, String remoteJobId) {
    requireAction(lease, NextAction.DISPATCH);
    Identifiers.requireRemoteJobId(remoteJobId);
    LogFields.remoteJob(remoteJobId);
    String details = details().put("remote_job_id", remoteJobId).toString();
    return finish("accepted", lease, dispatch.recordAccepted(lease, details, remoteJobId, credits));
  }

  /**
   * Dispatch: the POST provably created nothing (connection never established, or rate limited), so
   * the operation is dispatchable again.
   */
  public WriteResult recordNotSent(Lease lease, String outcome, String detail) {
    requireAction(lease, NextAction.DISPATCH);
    String details = details().put("outcome", outcome).put("detail", detail).toString();
    return finish("not_sent", lease, dispatch.recordNotSent(lease, details, outcome, detail));
  }

  /** Dispatch: Genace refused the request (nothing created); the operation fails. */
  public WriteResult recordRefused(Lease lease, String detail) {
    requireAction(lease, NextAction.DISPATCH);
    String details = details().put("detail", detail).toString();
    return finish("refused", lease, dispatch.recordRefused(lease, details, detail));
  }

  /** Opens an uncertainty review: the operation waits for an operator's decision. */
  public WriteResult openReview(Lease lease, String reason, String detail) {
    requireLease(lease);
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("review reason must not be blank");
    }
    String details = details().put("reason", reason).put("detail", detail).toString();
    return finish("review_opened", lease, reviews.openReview(lease, details, reason, detail));
  }

  /**
   * Records an operator's decision on a review, under a {@code reconcile} lease.
   *
   * @param remoteJobId required for {@link ReviewDecision#FOUND_REMOTE_JOB}, ignored otherwise
   */
  public WriteResult resolveReview(
      Lease lease,
      ReviewDecision decision,
      Optional<String> remoteJobId,
      String resolvedBy,
      String note) {
    return resolveReview(lease, decision, remoteJobId, resolvedBy, Optional.empty(), note);
  }

  /**
   * The same, with the Temporal identity the resolution was sent under, kept in the transition's
   * details beside who resolved it.
   */
  public WriteResult resolveReview(
      Lease lease,
      ReviewDecision decision,
      Optional<String> remoteJobId,
      String resolvedBy,
      Optional<String> caller,
      String note) {
    requireAction(lease, NextAction.RECONCILE);
    if (decision == ReviewDecision.FOUND_REMOTE_JOB) {
      Identifiers.requireRemoteJobId(remoteJobId.orElse(null));
    }
    if (resolvedBy == null || resolvedBy.isBlank()) {
      throw new IllegalArgumentException("who resolved the review must be given");
    }
    String jobId = decision == ReviewDecision.FOUND_REMOTE_JOB ? remoteJobId.orElseThrow() : null;
    String details =
        details()
            .put("decision", decision.wire())
            .put("remote_job_id", jobId)
            .put("resolved_by", resolvedBy)
            .put("caller", caller.orElse(null))
            .put("note", note)
            .toString();
    return finish(
        "review_resolved",
        lease,
        reviews.resolveReview(lease, details, decision.wire(), jobId, resolvedBy, note, credits));
  }

  /**
   * Keeps what Genace told about an operation in review on its review case.
   *
   * @param reviewOpenedAt when the review the evidence was gathered for opened, as the row said
   * @return false when that review is not open any more (nothing is written)
   */
  public boolean recordReviewEvidence(
      String operationId, Instant reviewOpenedAt, String evidenceJson, String summary) {
    Identifiers.requireOperationId(operationId);
    return evidence.record(operationId, reviewOpenedAt, requireJsonObject(evidenceJson), summary);
  }

  /** The evidence of the operation's latest review, if any was gathered. */
  public Optional<ReviewEvidenceRow> reviewEvidence(String operationId) {
    Identifiers.requireOperationId(operationId);
    return evidence.find(operationId);
  }

  /** The evidence of the reviews open now, oldest review first. */
  public List<ReviewEvidenceRow> openReviewEvidence(int limit) {
    if (limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIST_LIMIT);
    }
    return evidence.openReviews(limit);
  }

  /**
   * Observation: mirrors a remote snapshot through the permitted transitions only. Returns {@code
   * UNCHANGED} for a snapshot that is not newer than the stored one. The lease stays ours unless
   * the snapshot is terminal.
   */
  public WriteResult recordSnapshot(
      Lease lease, RemoteStatus status, String snapshotJson, String failureReason) {
    requireAction(lease, NextAction.OBSERVE);
    String snapshot = requireJsonObject(snapshotJson);
    String details = details().put("status", status.wire()).toString();
    return finish(
        "snapshot",
        lease,
        remoteJob.recordSnapshot(lease, details, status, snapshot, failureReason));
  }

  /**
   * Observation: records a snapshot of {@code remoteJobId} that is newer than the stored one, in
   * one statement that takes the place of an observe {@link #claim}, {@link #recordSnapshot} and a
   * release. It applies only while the operation is observing that job and no other owner holds a
   * live lease, under a new revision, and leaves the lease free. A refusal says why and carries the
   * row; it leaves no history row, except for a snapshot older than the stored one ({@code
   * not_permitted}, as the fenced write keeps).
   *
   * @throws UnknownOperationException if there is no such operation
   */
  public ObservedSnapshot recordObservedSnapshot(
      String operationId,
      String owner,
      String remoteJobId,
      RemoteStatus status,
      String snapshotJson,
      String failureReason) {
    Identifiers.requireOperationId(operationId);
    Identifiers.requireOwner(owner);
    Identifiers.requireRemoteJobId(remoteJobId);
    String snapshot = requireJsonObject(snapshotJson);
    String details = details().put("status", status.wire()).toString();
    ObservedSnapshot outcome =
        observation
            .record(operationId, owner, remoteJobId, details, status, snapshot, failureReason)
            .orElseThrow(() -> new UnknownOperationException(operationId));
    if (outcome instanceof ObservedSnapshot.Recorded) {
      stats.transition("snapshot");
    }
    return outcome;
  }

  /**
   * Logs the ERROR line "operation ... has been observing (or delivering) for ..., longer than the
   * limit" when the operation is still in {@code phase}, entered it at least {@code limit} ago (by
   * the database clock) and was not reported in this phase yet: once per operation and phase,
   * whichever worker, attempt or restart asks (the mark is in the row; logger {@code
   * com.genace.activities.ledger.WaitingTooLong}). Nothing else changes: the operation goes on as
   * before.
   *
   * @return whether this call logged it
   */
  public boolean reportWaitingTooLong(String operationId, Phase phase, Duration limit) {
    Optional<WaitingTooLong.Report> report = waitingTooLong.report(operationId, phase, limit);
    report.ifPresent(r -> WaitingTooLong.logReport(r, limit));
    return report.isPresent();
  }

  /**
   * Whether {@code row} may be due for {@link #reportWaitingTooLong}, by this process's clock: not
   * reported yet and in its phase at least {@code limit}. Spares the statement for every other row;
   * the statement decides by the database clock.
   */
  public static boolean mayWaitTooLong(OperationRow row, Duration limit, Instant now) {
    return row.tooLongReportedAt().isEmpty() && !row.inPhaseSince().plus(limit).isAfter(now);
  }

  /**
   * Records why a delivery attempt failed (for {@code ops show}), under the deliver lease it held:
   * no new revision, no history row. A lease taken over since records nothing.
   */
  public boolean recordDeliveryFailure(Lease lease, String reason) {
    requireAction(lease, NextAction.DELIVER);
    return waitingTooLong.deliveryFailed(lease, reason);
  }

  /** Delivery: every artifact is in the store; the operation ends {@code delivered}. */
  public WriteResult recordDelivered(Lease lease, String manifestJson) {
    requireAction(lease, NextAction.DELIVER);
    String manifest = requireJsonObject(manifestJson);
    return finish(
        "delivered", lease, remoteJob.recordDelivered(lease, details().toString(), manifest));
  }

  /**
   * Cancellation: ends the operation {@code abandoned} under whichever lease its current action
   * needs (not from {@code submitting}), recording who and why; the remote job id, snapshot, review
   * case and delivery manifest are kept.
   */
  public WriteResult cancel(Lease lease, String requestedBy, String reason) {
    requireLease(lease);
    if (requestedBy == null || requestedBy.isBlank() || reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("a cancellation needs who and why");
    }
    String details = details().put("requested_by", requestedBy).put("reason", reason).toString();
    return finish(
        "cancelled",
        lease,
        lifecycle.cancel(lease, details, "cancelled by " + requestedBy + ": " + reason));
  }

  /**
   * Writes an accepted cancel request to the operation's row (who, why, whether a render Genace
   * accepted is still delivered), unless the row holds one already or the operation ended. From
   * then on every claim that leads to a POST refuses the operation ({@link #claimToSubmit}, {@link
   * #claimToPost}, {@link #markSubmitting}); a POST already in flight under its lease still records
   * its outcome. See {@code LifecycleWrites.REQUEST_CANCEL}.
   */
  public CancelRecord requestCancel(
      String operationId, String requestedBy, String reason, Boolean deliverRendering) {
    Identifiers.requireOperationId(operationId);
    if (requestedBy == null || requestedBy.isBlank() || reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("a cancel request needs who and why");
    }
    Optional<LifecycleWrites.CancelRecorded> written =
        lifecycle.requestCancel(operationId, requestedBy, reason, deliverRendering);
    if (written.isEmpty()) {
      return CancelRecord.NOT_REGISTERED;
    }
    if (written.get().recorded()) {
      return CancelRecord.RECORDED;
    }
    return Phase.parse(written.get().phase()).isTerminal()
        ? CancelRecord.ENDED
        : CancelRecord.ALREADY_HELD;
  }

  /**
   * Keeps a cancel request that came after the operation ended in its history (as not accepted).
   *
   * @return false if the operation is unknown or not terminal (nothing written)
   */
  public boolean noteCancelAfterEnd(
      String operationId, String owner, String requestedBy, String reason) {
    Identifiers.requireOperationId(operationId);
    String details = details().put("requested_by", requestedBy).put("reason", reason).toString();
    return lifecycle.noteCancelAfterEnd(operationId, owner, details) == 1;
  }

  /** An operation that is not terminal, as the orphan sweeper reads it. */
  public record Unfinished(
      String operationId,
      long revision,
      Phase phase,
      String model,
      String input,
      String account,
      Instant createdAt) {

    /** This operation's place in the sweeper's walk. */
    public SweepPosition position() {
      return new SweepPosition(phase.wire(), createdAt);
    }
  }

  /**
   * {@code limit} operations that are not terminal (fewer at the end of the walk; more when others
   * were created in the same microsecond as the last one), after {@code after} in the sweeper's
   * walk order ({@code (phase, created_at)}): one range scan of the partial index over unfinished
   * operations.
   */
  public List<Unfinished> unfinishedAfter(SweepPosition after, int limit) {
    if (after == null) {
      throw new IllegalArgumentException("a position is needed (SweepPosition.START to begin)");
    }
    if (limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIST_LIMIT);
    }
    return lifecycle.listUnfinishedAfter(after, limit).stream()
        .map(
            u ->
                new Unfinished(
                    u.operationId(),
                    u.revision(),
                    Phase.parse(u.phase()),
                    u.model(),
                    u.input(),
                    u.account(),
                    u.createdAt()))
        .toList();
  }

  /** Where the sweeper's walk stands (the row is created at the start when missing). */
  public SweepCursor sweepCursor(String reader) {
    Identifiers.requireOwner(reader);
    return sweepCursors.read(reader);
  }

  /**
   * Moves the sweeper's position to {@code to} ({@link SweepPosition#START} with {@code
   * walkCompleted} once the walk has reached the end), only if it is still at {@code generation}.
   *
   * @return false when another pass moved it since it was read (this pass should stop)
   */
  public boolean moveSweepCursor(
      long generation, SweepPosition to, boolean walkCompleted, String owner) {
    Identifiers.requireOwner(owner);
    if (to == null || (walkCompleted && !to.isStart())) {
      throw new IllegalArgumentException("a completed walk starts again at SweepPosition.START");
    }
    return sweepCursors.move(generation, to, walkCompleted, owner);
  }

  /**
   * The orphan sweeper: moves an operation whose workflow closed to review ({@code
   * workflow_closed}, or its existing review kept), fenced by the revision read with {@link
   * #unfinishedAfter} and a free or expired lease.
   *
   * @param evidence a JSON object kept in the history row (the workflow's close status)
   * @return false when the row changed since, or a live lease holds it (the next sweep looks again)
   */
  public boolean sweepToReview(String operationId, long revision, String owner, String evidence) {
    Identifiers.requireOperationId(operationId);
    Identifiers.requireOwner(owner);
    boolean moved =
        lifecycle.sweepToReview(operationId, revision, owner, requireJsonObject(evidence));
    if (moved) {
      stats.transition("workflow_closed");
    }
    return moved;
  }

  private WriteResult finish(String event, Lease lease, FenceOutcome outcome) {
    WriteResult result = outcome.result(event, lease);
    if (result == WriteResult.APPLIED && !event.equals("released")) {
      stats.transition(event);
    } else if (result == WriteResult.DENIED) {
      denied(event, lease);
    }
    return result;
  }

  private void denied(String event, Lease lease) {
    stats.denied(event);
    log.warn(
        "{} denied for operation {}: lease of {} at revision {} for {} is no longer valid",
        event,
        lease.operationId(),
        lease.owner(),
        lease.revision(),
        lease.action().wire());
  }

  private static void requireLease(Lease lease) {
    Identifiers.requireOperationId(lease.operationId());
    Identifiers.requireOwner(lease.owner());
  }

  private static void requireAction(Lease lease, NextAction expected) {
    requireLease(lease);
    if (lease.action() != expected) {
      throw new IllegalArgumentException(
          "this write needs a " + expected.wire() + " lease, not " + lease.action().wire());
    }
  }

  /** {@code json} as one JSON object, normalised; anything else is refused. */
  static String requireJsonObject(String json) {
    try {
      var node = JSON.readTree(json);
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException("expected a JSON object");
      }
      return node.toString();
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("malformed JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static ObjectNode details() {
    return JSON.createObjectNode();
  }
}
