package com.genace.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.model.NextAction;
import com.genace.model.Phase;
import com.genace.model.RemoteStatus;
import com.genace.model.ReviewDecision;
import io.micrometer.core.instrument.Metrics;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application-owned operations table, written only under leases fenced by owner + revision.
 *
 * <p>Every method is one statement in autocommit mode (a claim that finds nothing to take runs at
 * most two more), bounded by the pool's lock and statement timeouts; no transaction is ever held
 * across a network call. Time is the database's wall clock ({@code clock_timestamp()}), never the
 * transaction start.
 *
 * <p>Exclusive writes take the {@link Lease} they were claimed under and return a {@link
 * WriteResult}: {@code DENIED} when the owner, revision or action no longer match or the lease has
 * expired (a diagnostic row is kept, the operation row is untouched), {@code UNCHANGED} when the
 * lease is valid but the transition is not permitted from the current state.
 */
public final class OperationsLedger {

  /** The seed's example lease length. */
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(45);

  /** Upper bound on rows returned by {@link #list}. */
  public static final int MAX_LIST_LIMIT = 10_000;

  private static final Logger log = LoggerFactory.getLogger(OperationsLedger.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Jdbc jdbc;
  private final Duration leaseDuration;

  public OperationsLedger(DataSource dataSource) {
    this(dataSource, DEFAULT_LEASE_DURATION);
  }

  public OperationsLedger(DataSource dataSource, Duration leaseDuration) {
    if (leaseDuration == null || leaseDuration.isNegative() || leaseDuration.isZero()) {
      throw new IllegalArgumentException("lease duration must be positive");
    }
    this.jdbc = new Jdbc(dataSource);
    this.leaseDuration = leaseDuration;
  }

  public Duration leaseDuration() {
    return leaseDuration;
  }

  /** Records a new operation in {@code pending}. Idempotent: returns false if it already exists. */
  public boolean create(NewOperation operation) {
    String input = requireJsonObject(operation.inputJson());
    long created =
        jdbc.queryOne(
                LedgerStatements.CREATE,
                List.of(operation.operationId(), operation.model(), input, operation.account()),
                rs -> rs.getLong("created"))
            .orElseThrow();
    return created == 1;
  }

  public Optional<OperationRow> find(String operationId) {
    Identifiers.requireOperationId(operationId);
    return jdbc.queryOne(LedgerStatements.FIND, List.of(operationId), OperationsLedger::row);
  }

  /**
   * @throws UnknownOperationException if there is no such operation
   */
  public OperationRow get(String operationId) {
    return find(operationId).orElseThrow(() -> new UnknownOperationException(operationId));
  }

  /** The most recently created operations, optionally only those in one phase. */
  public List<OperationRow> list(Optional<Phase> phase, int limit) {
    if (limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIST_LIMIT);
    }
    String wire = phase.map(Phase::wire).orElse(null);
    return jdbc.query(
        LedgerStatements.LIST, java.util.Arrays.asList(wire, wire, limit), OperationsLedger::row);
  }

  public Map<Phase, Long> countByPhase() {
    Map<Phase, Long> counts = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      counts.put(phase, 0L);
    }
    jdbc.query(
        LedgerStatements.COUNT_BY_PHASE,
        List.of(),
        rs -> counts.put(Phase.parse(rs.getString("phase")), rs.getLong("n")));
    return counts;
  }

  /** The operation's transitions and denied writes, oldest first. */
  public List<TransitionRow> history(String operationId) {
    Identifiers.requireOperationId(operationId);
    return jdbc.query(LedgerStatements.HISTORY, List.of(operationId), OperationsLedger::transition);
  }

  /**
   * Tries to take {@code action} on the operation for {@code owner}, as the seed describes.
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
    Optional<ClaimResult> acquired =
        jdbc.queryOne(
            LedgerStatements.CLAIM,
            List.of(operationId, owner, action.wire(), interval(leaseDuration)),
            rs ->
                new ClaimResult.Acquired(
                    new Lease(
                        operationId,
                        owner,
                        rs.getLong("revision"),
                        action,
                        Jdbc.instant(rs, "lease_until").orElseThrow()),
                    Jdbc.text(rs, "remote_job_id")));
    if (acquired.isPresent()) {
      ClaimResult.Acquired claimed = (ClaimResult.Acquired) acquired.get();
      LogFields.lease(claimed.lease(), claimed.remoteJobId());
      return claimed;
    }
    if (action == NextAction.DISPATCH || action == NextAction.OBSERVE) {
      Optional<ClaimResult> diverted =
          jdbc.queryOne(
              LedgerStatements.DIVERT_TO_REVIEW,
              List.of(operationId, owner, action.wire()),
              rs ->
                  new ClaimResult.MovedToReview(
                      rs.getString("review_reason"), rs.getLong("revision")));
      if (diverted.isPresent()) {
        log.warn(
            "operation {} moved to review instead of {}: {}",
            operationId,
            action.wire(),
            ((ClaimResult.MovedToReview) diverted.get()).reviewReason());
        return diverted.get();
      }
    }
    OperationRow current = get(operationId);
    boolean leased =
        current.nextAction() == action
            && current.leaseUntil().map(until -> until.isAfter(Instant.now())).orElse(false);
    return new ClaimResult.NotAcquired(
        leased ? ClaimResult.Reason.LEASED : ClaimResult.Reason.NOT_ELIGIBLE, current);
  }

  /**
   * Extends the lease, bound to the owner and revision it was claimed under.
   *
   * @return {@code Denied} when the lease is no longer ours; {@code Uncertain} when the statement's
   *     outcome is unknown (for example its response was lost): the caller must stop exclusive
   *     writes until it claims again
   */
  public RenewResult renew(Lease lease) {
    FencedWrite write = LedgerStatements.RENEW;
    List<Object> args = write.arguments(lease, interval(leaseDuration), "{}", List.of());
    List<Outcome> outcomes;
    try {
      outcomes = jdbc.queryOrThrow(write.sql(), args, OperationsLedger::outcome);
    } catch (SQLException e) {
      log.warn(
          "lease renewal for operation {} (revision {}) has an unknown outcome: {}",
          lease.operationId(),
          lease.revision(),
          e.getMessage());
      return new RenewResult.Uncertain(Jdbc.translate(e).getMessage());
    }
    Outcome outcome = outcomes.get(0);
    requireFound(outcome, lease.operationId());
    if (outcome.applied() == 1) {
      return new RenewResult.Renewed(lease.renewedUntil(outcome.leaseUntil().orElseThrow()));
    }
    logDenied(write, lease);
    return new RenewResult.Denied();
  }

  /** Gives the action up so another worker may claim it at once (for example when draining). */
  public WriteResult release(Lease lease) {
    return write(LedgerStatements.RELEASE, lease, details(), List.of());
  }

  /** Dispatch: records that a POST is about to leave. Must commit before anything is sent. */
  public WriteResult markSubmitting(Lease lease) {
    requireAction(lease, NextAction.DISPATCH);
    return write(LedgerStatements.MARK_SUBMITTING, lease, details(), List.of());
  }

  /** Dispatch: Genace accepted the POST; the operation moves to observation of that job. */
  public WriteResult recordAccepted(Lease lease, String remoteJobId) {
    requireAction(lease, NextAction.DISPATCH);
    Identifiers.requireRemoteJobId(remoteJobId);
    LogFields.remoteJob(remoteJobId);
    return write(
        LedgerStatements.RECORD_ACCEPTED,
        lease,
        details().put("remote_job_id", remoteJobId),
        List.of(remoteJobId));
  }

  /**
   * Dispatch: the POST provably created nothing (connection never established, or rate limited), so
   * the operation is dispatchable again.
   */
  public WriteResult recordNotSent(Lease lease, String outcome, String detail) {
    requireAction(lease, NextAction.DISPATCH);
    return write(
        LedgerStatements.RECORD_NOT_SENT,
        lease,
        details().put("outcome", outcome).put("detail", detail),
        java.util.Arrays.asList(outcome, detail));
  }

  /** Dispatch: Genace refused the request (nothing created); the operation fails. */
  public WriteResult recordRefused(Lease lease, String detail) {
    requireAction(lease, NextAction.DISPATCH);
    return write(
        LedgerStatements.RECORD_REFUSED,
        lease,
        details().put("detail", detail),
        java.util.Arrays.asList(detail));
  }

  /** Opens an uncertainty review: the operation waits for an operator's decision. */
  public WriteResult openReview(Lease lease, String reason, String detail) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("review reason must not be blank");
    }
    return write(
        LedgerStatements.OPEN_REVIEW,
        lease,
        details().put("reason", reason).put("detail", detail),
        java.util.Arrays.asList(reason, detail));
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
    requireAction(lease, NextAction.RECONCILE);
    if (decision == ReviewDecision.FOUND_REMOTE_JOB) {
      Identifiers.requireRemoteJobId(remoteJobId.orElse(null));
    }
    if (resolvedBy == null || resolvedBy.isBlank()) {
      throw new IllegalArgumentException("who resolved the review must be given");
    }
    String jobId = decision == ReviewDecision.FOUND_REMOTE_JOB ? remoteJobId.orElseThrow() : null;
    ObjectNode details =
        details()
            .put("decision", decision.wire())
            .put("remote_job_id", jobId)
            .put("resolved_by", resolvedBy)
            .put("note", note);
    return write(
        LedgerStatements.RESOLVE_REVIEW,
        lease,
        details,
        java.util.Arrays.asList(decision.wire(), jobId, resolvedBy, note));
  }

  /**
   * Observation: mirrors a remote snapshot through the permitted transitions only. Returns {@code
   * UNCHANGED} for a snapshot that is not newer than the stored one.
   */
  public WriteResult recordSnapshot(
      Lease lease, RemoteStatus status, String snapshotJson, String failureReason) {
    requireAction(lease, NextAction.OBSERVE);
    String snapshot = requireJsonObject(snapshotJson);
    return write(
        LedgerStatements.RECORD_SNAPSHOT,
        lease,
        details().put("status", status.wire()),
        java.util.Arrays.asList(status.wire(), status.rank(), snapshot, failureReason));
  }

  /** Delivery: every artifact is in the store; the operation ends {@code delivered}. */
  public WriteResult recordDelivered(Lease lease, String manifestJson) {
    requireAction(lease, NextAction.DELIVER);
    String manifest = requireJsonObject(manifestJson);
    return write(LedgerStatements.RECORD_DELIVERED, lease, details(), List.of(manifest));
  }

  private WriteResult write(FencedWrite write, Lease lease, ObjectNode details, List<?> extras) {
    Identifiers.requireOperationId(lease.operationId());
    Identifiers.requireOwner(lease.owner());
    List<Object> args = write.arguments(lease, interval(leaseDuration), details.toString(), extras);
    Outcome outcome = jdbc.query(write.sql(), args, OperationsLedger::outcome).get(0);
    requireFound(outcome, lease.operationId());
    if (outcome.applied() > 1) {
      throw new IllegalStateException(
          write.event() + " changed " + outcome.applied() + " rows of " + lease.operationId());
    }
    if (outcome.applied() == 1) {
      return WriteResult.APPLIED;
    }
    if (outcome.fenced()) {
      return WriteResult.UNCHANGED;
    }
    logDenied(write, lease);
    return WriteResult.DENIED;
  }

  private static void logDenied(FencedWrite write, Lease lease) {
    Metrics.counter("genace_lease_denials", "write", write.event()).increment();
    log.warn(
        "{} denied for operation {}: lease of {} at revision {} for {} is no longer valid",
        write.event(),
        lease.operationId(),
        lease.owner(),
        lease.revision(),
        lease.action().wire());
  }

  private static void requireFound(Outcome outcome, String operationId) {
    if (outcome.found() == 0) {
      throw new UnknownOperationException(operationId);
    }
  }

  private static void requireAction(Lease lease, NextAction expected) {
    if (lease.action() != expected) {
      throw new IllegalArgumentException(
          "this write needs a " + expected.wire() + " lease, not " + lease.action().wire());
    }
  }

  private static String requireJsonObject(String json) {
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

  private static String interval(Duration duration) {
    return duration.toMillis() + " milliseconds";
  }

  private record Outcome(long found, boolean fenced, long applied, Optional<Instant> leaseUntil) {}

  private static Outcome outcome(ResultSet rs) throws SQLException {
    return new Outcome(
        rs.getLong("found"),
        rs.getBoolean("fenced"),
        rs.getLong("applied"),
        Jdbc.instant(rs, "lease_until"));
  }

  private static OperationRow row(ResultSet rs) throws SQLException {
    return new OperationRow(
        rs.getString("operation_id"),
        Phase.parse(rs.getString("phase")),
        NextAction.parse(rs.getString("next_action")),
        Jdbc.text(rs, "remote_job_id"),
        Jdbc.text(rs, "lease_owner"),
        Jdbc.instant(rs, "lease_until"),
        rs.getLong("revision"),
        rs.getString("model"),
        rs.getString("request"),
        Jdbc.text(rs, "remote_status").map(RemoteStatus::parse),
        Jdbc.text(rs, "remote_snapshot"),
        Jdbc.instant(rs, "remote_observed_at"),
        rs.getInt("dispatch_attempts"),
        Jdbc.instant(rs, "submitting_since"),
        Jdbc.text(rs, "dispatch_outcome"),
        Jdbc.text(rs, "dispatch_detail"),
        Jdbc.text(rs, "review_reason"),
        Jdbc.instant(rs, "review_opened_at"),
        Jdbc.text(rs, "review_resolution"),
        Jdbc.text(rs, "review_resolved_by"),
        Jdbc.instant(rs, "review_resolved_at"),
        Jdbc.text(rs, "review_note"),
        Jdbc.text(rs, "delivery_manifest"),
        Jdbc.text(rs, "failure_reason"),
        Jdbc.instant(rs, "created_at").orElseThrow(),
        Jdbc.instant(rs, "updated_at").orElseThrow(),
        rs.getString("account"));
  }

  private static TransitionRow transition(ResultSet rs) throws SQLException {
    return new TransitionRow(
        rs.getLong("id"),
        rs.getString("operation_id"),
        rs.getLong("revision"),
        Jdbc.text(rs, "owner"),
        rs.getString("event"),
        Jdbc.text(rs, "from_phase"),
        Jdbc.text(rs, "to_phase"),
        rs.getBoolean("accepted"),
        rs.getString("details"),
        Jdbc.instant(rs, "at").orElseThrow());
  }
}
