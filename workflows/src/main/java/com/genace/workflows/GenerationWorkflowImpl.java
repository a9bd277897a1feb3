package com.genace.workflows;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.delivery.DeliveredArtifact;
import com.genace.delivery.DeliveryActivities;
import com.genace.delivery.DeliveryResult;
import com.genace.dispatch.DispatchActivities;
import com.genace.dispatch.DispatchOutcome;
import com.genace.dispatch.DispatchResult;
import com.genace.lifecycle.CancelActivities;
import com.genace.lifecycle.CancelOutcome;
import com.genace.lifecycle.CancelRequest;
import com.genace.model.FailureTypes;
import com.genace.model.Phase;
import com.genace.model.RemoteStatus;
import com.genace.model.ReviewDecision;
import com.genace.model.ReviewReason;
import com.genace.observation.LegacyObservationActivities;
import com.genace.observation.ObservationActivities;
import com.genace.observation.ObservationResult;
import com.genace.review.EvidenceActivities;
import com.genace.review.JobCheck;
import com.genace.review.ResolutionPayload;
import com.genace.review.ReviewActivities;
import com.genace.review.ReviewCase;
import com.genace.review.ReviewEvidence;
import com.genace.review.ReviewOpened;
import com.genace.review.ReviewResolution;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * The operation's story, step by step:
 *
 * <ol>
 *   <li>register the operation in the ledger ({@code pending});
 *   <li>dispatch once; refused ends {@code failed}; not sent or rate limited waits and dispatches
 *       again; unknown (or a dispatch activity that never reported back) opens a review;
 *   <li>in review, wait without limit for an operator's resolution, reminding periodically;
 *   <li>observe the remote job until it is terminal; deliver its artifacts on success.
 * </ol>
 *
 * <p>A dispatch turned away by a paused, draining or over-allowance dispatcher is not an attempt:
 * it is not counted and waits briefly before dispatching again.
 *
 * <p>Observation is one activity whose attempts are the polls ({@link ObservationActivities});
 * workflows that reached observation before that change (no {@value #OBSERVE_BY_POLLING} marker in
 * their history) keep the long {@link LegacyObservationActivities#observe} they were started with.
 *
 * <p>A cancel request (the {@code cancel} update with who and why, or Temporal's own) stops the
 * steps wherever they are and ends the operation by phase ({@link #endAfterCancel}): no POST after
 * it, a POST or delivery already under way runs to its recorded end, and a render Genace accepted
 * keeps its remote job id in the ledger. Workflows started before that change (no {@value
 * #CANCEL_WITH_MEANING} marker) end at once on a Temporal cancel, as they did.
 *
 * <p>Deterministic: only Temporal's clock, timers and logger are used.
 */
public class GenerationWorkflowImpl implements GenerationWorkflow {

  /** After this many attempts that provably sent nothing, an operator decides. */
  static final int MAX_NOT_SENT_ATTEMPTS = 5;

  static final Duration REVIEW_REMINDER_INTERVAL = Duration.ofHours(1);

  /**
   * How long a dispatch turned away by a closed gate waits before trying again. Short, so that it
   * leaves within seconds of a resume; cheap, because the gate turns it away before any claim.
   */
  static final Duration PAUSED_RECHECK_INTERVAL = Duration.ofSeconds(5);

  /**
   * The change id of polling observation (version 1); the default version observes the long way.
   */
  static final String OBSERVE_BY_POLLING = "observe-by-polling";

  /**
   * The change id of where registration runs. Version 1 registered as a local activity (one marker
   * instead of an activity's events); it lost an operation in the network fault drill (no ledger
   * row after the faults ended), so version 2, what new workflows get, registers with a scheduled
   * activity again, as the default version does. Versions 1 and 2 imply {@link
   * #OBSERVE_BY_POLLING}, whose marker such workflows therefore do not record.
   */
  static final String REGISTER_LOCALLY = "register-locally";

  static final Duration MAX_NOT_SENT_BACKOFF = Duration.ofMinutes(1);

  /**
   * The change id of cancellation with meaning (version 1): the operation's steps run in a scope
   * that a cancel request stops, the POST, the recording of its outcome and a delivery under way
   * run to their end regardless, and the ledger records the cancellation. Workflows started before
   * (no marker) end at once on a cancel request, as they did.
   */
  static final String CANCEL_WITH_MEANING = "cancel-with-meaning";

  /**
   * The change id of resolutions checked whole before they are accepted (version 1): the ledger's
   * identifier rule, a named job read on Genace first, a permanent recording failure refused rather
   * than retried; and a payload of any shape answered. The default version takes them as before.
   */
  static final String CHECKED_RESOLUTIONS = "checked-resolutions";

  /** The change id of evidence gathered when a review opens, and reviews settling themselves. */
  static final String REVIEW_EVIDENCE = "review-evidence";

  /** Who resolved a review that settled itself. */
  public static final String RECONCILER = "reconciler";

  /** How many refused resolutions the Web UI's current details repeat. */
  static final int REFUSALS_SHOWN = 3;

  private static final Logger log = Workflow.getLogger(GenerationWorkflowImpl.class);
  private static final OperationLog outcomes = new OperationLog(log);

  private static final RetryOptions RETRY_FREELY =
      RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(1))
          .setBackoffCoefficient(2)
          .setMaximumInterval(Duration.ofMinutes(1))
          .build();

  /** Registration run by the workflow's own worker, retried as freely as any ledger step. */
  private static final LocalActivityOptions LOCAL_LEDGER_STEP =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RETRY_FREELY)
          .build();

  private static final ActivityOptions LEDGER_STEP =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RETRY_FREELY)
          .build();

  /**
   * Reads Genace only; the evidence activity repeats the search itself for its short window, hence
   * the longer timeout. A Genace that stays unreachable leaves the review without evidence.
   */
  private static final ActivityOptions EVIDENCE =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofMinutes(2))
          .setRetryOptions(RetryOptions.newBuilder(RETRY_FREELY).setMaximumAttempts(5).build())
          .build();

  /** Reads one job an operator named; a Genace unreachable for every attempt refuses the job. */
  private static final ActivityOptions CHECK_JOB =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(
              RetryOptions.newBuilder(RETRY_FREELY)
                  .setMaximumInterval(Duration.ofSeconds(5))
                  .setMaximumAttempts(4)
                  .build())
          .build();

  /** Never retried: a second POST could pay for a second render. The timeout comes per request. */
  private static final ActivityOptions DISPATCH =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.DISPATCH)
          .setStartToCloseTimeout(Duration.ofMinutes(2))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  /**
   * One status read per attempt. The attempt is short, so a worker that dies mid-poll is noticed
   * after the start-to-close timeout, not a heartbeat timeout; the pacing between polls comes from
   * each failed attempt's next retry delay, and this policy's interval only applies after a timeout
   * (a crashed worker), hence its low maximum.
   */
  private static final ActivityOptions POLL =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OBSERVATION)
          .setStartToCloseTimeout(Duration.ofSeconds(15))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setBackoffCoefficient(2)
                  .setMaximumInterval(Duration.ofSeconds(5))
                  .build())
          .build();

  /** The long observation of workflows started before {@link #OBSERVE_BY_POLLING}. */
  private static final ActivityOptions LEGACY_OBSERVE =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofHours(6))
          .setHeartbeatTimeout(Duration.ofSeconds(60))
          .setRetryOptions(RETRY_FREELY)
          .build();

  private static final ActivityOptions DELIVER =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofMinutes(30))
          .setHeartbeatTimeout(Duration.ofSeconds(60))
          .setRetryOptions(RETRY_FREELY)
          .build();

  private enum Step {
    DISPATCH,
    REVIEW,
    OBSERVE,
    DELIVER,
    DONE
  }

  private String operationId;

  /**
   * Set by {@link #REGISTER_LOCALLY}'s version 1 or 2: such workflows always observe by polling.
   */
  private boolean impliesPolling;

  private Phase phase = Phase.PENDING;
  private String remoteJobId;
  private RemoteStatus lastRemoteStatus;
  private int dispatchAttempts;
  private ReviewCase review;
  private Submission pending;
  private boolean applyingResolution;
  private boolean gatheringEvidence;
  private String phaseDetails = "";
  private final List<String> rejectedResolutions = new ArrayList<>();
  private List<DeliveredArtifact> artifacts = List.of();
  private OperationResult result;

  /** {@link #CANCEL_WITH_MEANING}'s version; null until decided, right after registration. */
  private Integer lifecycleVersion;

  /** The operation's steps, stopped by a cancel request (version 1 only). */
  private CancellationScope work;

  private CancelRequest cancelRequest;

  /** A review opened after the cancel request: a POST answered unknown while being cancelled. */
  private boolean reviewOpenedAfterCancel;

  @Override
  public OperationResult run(GenerationRequest request) {
    requireValid(request);
    operationId = request.operationId();
    register(request);
    lifecycleVersion = Workflow.getVersion(CANCEL_WITH_MEANING, Workflow.DEFAULT_VERSION, 1);
    if (cancellable()) {
      return runCancellable(request);
    }
    runSteps(request, Step.DISPATCH);
    return result;
  }

  private void runSteps(GenerationRequest request, Step first) {
    Step step = first;
    while (step != Step.DONE) {
      step =
          switch (step) {
            case DISPATCH -> dispatchUntilDecided(request);
            case REVIEW -> awaitResolution();
            case OBSERVE -> observe();
            case DELIVER -> deliver();
            case DONE -> Step.DONE;
          };
    }
  }

  private void register(GenerationRequest request) {
    int version = Workflow.getVersion(REGISTER_LOCALLY, Workflow.DEFAULT_VERSION, 2);
    impliesPolling = version != Workflow.DEFAULT_VERSION;
    if (version != 1) {
      setPhase(Phase.PENDING, "registering the operation");
      activity(ReviewActivities.class, LEDGER_STEP, "register " + operationId).register(request);
    } else {
      phaseDetails = "registering the operation";
      showDetails();
      Workflow.newLocalActivityStub(ReviewActivities.class, LOCAL_LEDGER_STEP).register(request);
    }
  }

  /**
   * A start input that breaks the contract (sent by a client other than {@link GenerationClient},
   * which validates first) fails the workflow before anything is registered or dispatched. Every
   * recorded history passed this check already, so adding it changes no replay.
   */
  private static void requireValid(GenerationRequest request) {
    if (request == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "invalid start input: it is missing (a GenerationRequest object)",
          FailureTypes.INVALID_REQUEST);
    }
    try {
      request.validate();
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "invalid start input: " + e.getMessage(), FailureTypes.INVALID_REQUEST);
    }
  }

  private Step dispatchUntilDecided(GenerationRequest request) {
    int notSent = 0;
    while (true) {
      setPhase(Phase.SUBMITTING, "dispatch attempt " + (dispatchAttempts + 1));
      DispatchResult dispatched = dispatchToTheEnd(request);
      if (dispatched.outcome() != DispatchOutcome.PAUSED
          && dispatched.outcome() != DispatchOutcome.ALLOWANCE_EXHAUSTED) {
        dispatchAttempts++;
      }
      switch (dispatched.outcome()) {
        case ACCEPTED -> {
          remoteJobId = dispatched.remoteJobId();
          return Step.OBSERVE;
        }
        case REFUSED -> {
          return finish(Phase.FAILED, "refused by Genace: " + dispatched.detail());
        }
        case NOT_SENT -> {
          notSent++;
          if (notSent >= MAX_NOT_SENT_ATTEMPTS) {
            return openReview(ReviewReason.DISPATCH_NOT_SENT_REPEATEDLY, dispatched.detail(), null);
          }
          waitBeforeDispatch(notSentBackoff(notSent), "not sent: " + dispatched.detail());
        }
        case RATE_LIMITED ->
            waitBeforeDispatch(
                Duration.ofMillis(Math.max(1000, dispatched.retryAfterMillis())),
                "rate limited by Genace");
        case PAUSED -> waitBeforeDispatch(PAUSED_RECHECK_INTERVAL, "dispatch paused");
        case ACCOUNT_REFUSED ->
            waitBeforeDispatch(PAUSED_RECHECK_INTERVAL, "Genace refused the account");
        case ALLOWANCE_EXHAUSTED ->
            waitBeforeDispatch(
                Duration.ofMillis(Math.max(1000, dispatched.retryAfterMillis())),
                "waiting for allowance (" + dispatched.detail() + ")");
        case UNKNOWN, IN_REVIEW -> {
          return openReview(
              dispatched.outcome() == DispatchOutcome.UNKNOWN
                  ? ReviewReason.POST_OUTCOME_UNKNOWN
                  : ReviewReason.DISPATCH_INTERRUPTED,
              dispatched.detail(),
              dispatched.remoteJobId());
        }
      }
    }
  }

  private DispatchResult dispatchOnce(GenerationRequest request) {
    ActivityOptions options =
        ActivityOptions.newBuilder(DISPATCH)
            .setStartToCloseTimeout(request.dispatchTimeout())
            .build();
    try {
      return activity(
              DispatchActivities.class, options, "POST /v1/generations (" + request.model() + ")")
          .dispatch(operationId);
    } catch (ActivityFailure failure) {
      if (failure.getCause() instanceof ApplicationFailure app
          && DispatchActivities.NOTHING_SENT.equals(app.getType())) {
        return DispatchResult.of(DispatchOutcome.NOT_SENT, app.getOriginalMessage());
      }
      // A timeout, a crash or any failure after the POST may have left: never retried.
      return DispatchResult.of(
          DispatchOutcome.UNKNOWN, "dispatch did not report back: " + describe(failure));
    }
  }

  private void waitBeforeDispatch(Duration delay, String why) {
    setPhase(Phase.PENDING, why + "; dispatching again in " + delay.toSeconds() + " s");
    Workflow.sleep(delay);
  }

  private static Duration notSentBackoff(int attempt) {
    Duration backoff = Duration.ofSeconds(1L << Math.min(attempt, 6));
    return backoff.compareTo(MAX_NOT_SENT_BACKOFF) > 0 ? MAX_NOT_SENT_BACKOFF : backoff;
  }

  private Step openReview(ReviewReason reason, String detail, String evidenceRemoteJobId) {
    ReviewOpened opened = recordReview(reason, detail);
    if (!opened.inReview()) {
      remoteJobId = opened.acceptedRemoteJobId();
      outcomes.info(
          operationId, remoteJobId, "operation {}: the ledger holds accepted job", operationId);
      return Step.OBSERVE;
    }
    return inReview(opened.reason(), detail, evidenceRemoteJobId);
  }

  /** The ledger holds the review already: the workflow waits for its resolution. */
  private Step inReview(ReviewReason reason, String detail, String evidenceRemoteJobId) {
    review = new ReviewCase(reason, detail, evidenceRemoteJobId, null, null);
    setPhase(Phase.IN_REVIEW, "waiting for an operator: " + reason.wire());
    outcomes.error(
        operationId,
        remoteJobId != null ? remoteJobId : evidenceRemoteJobId,
        "operation {} needs review: {} ({})",
        operationId,
        reason.wire(),
        detail);
    if (Workflow.getVersion(REVIEW_EVIDENCE, Workflow.DEFAULT_VERSION, 1) == 1) {
      gatherEvidence(evidenceRemoteJobId);
    }
    return Step.REVIEW;
  }

  private Step awaitResolution() {
    while (true) {
      while (!Workflow.await(REVIEW_REMINDER_INTERVAL, () -> pending != null)) {
        outcomes.warn(
            operationId,
            remoteJobId,
            "operation {} still waits for review: {}",
            operationId,
            review.reason().wire());
        Workflow.getMetricsScope().counter("genace_review_reminders").inc(1);
      }
      Submission submission = pending;
      pending = null;
      applyingResolution = true;
      Optional<String> refusal = applyResolution(submission);
      applyingResolution = false;
      if (submission.verdict() != null) {
        submission.verdict().decide(refusal.orElse(null));
      }
      if (refusal.isPresent()) {
        refuse(submission.shown(), refusal.get());
        continue;
      }
      ReviewResolution resolution = submission.resolution();
      review = review.withResolution(resolution);
      ReviewDecision decision = resolution.parsedDecision().orElseThrow();
      outcomes.info(
          operationId,
          decision == ReviewDecision.FOUND_REMOTE_JOB
              ? resolution.remoteJobId().trim()
              : remoteJobId,
          "operation {}: resolution {} by {} accepted: {}",
          operationId,
          decision.wire(),
          resolution.resolvedBy(),
          resolution.reason());
      return switch (decision) {
        case FOUND_REMOTE_JOB -> {
          remoteJobId = resolution.remoteJobId().trim();
          yield Step.OBSERVE;
        }
        case NOT_SUBMITTED -> Step.DISPATCH;
        case ABANDON -> finish(Phase.ABANDONED, "abandoned: " + resolution.reason());
      };
    }
  }

  private Step observe() {
    // Workflows that registered locally came after polling observation: no second marker needed.
    int version =
        impliesPolling ? 1 : Workflow.getVersion(OBSERVE_BY_POLLING, Workflow.DEFAULT_VERSION, 1);
    setPhase(Phase.OBSERVING, "observing remote job " + remoteJobId);
    String summary = "GET /v1/generations/" + remoteJobId;
    ObservationResult observed;
    if (version == Workflow.DEFAULT_VERSION) {
      observed =
          activity(LegacyObservationActivities.class, LEGACY_OBSERVE, summary).observe(operationId);
      if (observed.endedInReview()) {
        return openReview(ReviewReason.REMOTE_JOB_UNOBSERVABLE, observed.detail(), remoteJobId);
      }
    } else {
      observed = activity(ObservationActivities.class, POLL, summary).pollRemoteJob(operationId);
      if (observed.endedInReview()) {
        // The poll recorded the review in the ledger itself, under its observe lease.
        return inReview(observed.review(), observed.detail(), remoteJobId);
      }
    }
    lastRemoteStatus = observed.status();
    if (observed.status() == RemoteStatus.SUCCEEDED) {
      return Step.DELIVER;
    }
    return finish(Phase.FAILED, "render " + observed.status().wire() + ": " + observed.detail());
  }

  private Step deliver() {
    setPhase(Phase.DELIVERING, "copying the artifacts of " + remoteJobId);
    DeliveryResult delivered = deliverToTheEnd();
    artifacts = List.copyOf(delivered.artifacts());
    return finish(Phase.DELIVERED, artifacts.size() + " artifact(s) delivered");
  }

  private Step finish(Phase terminal, String detail) {
    setPhase(terminal, detail);
    result = new OperationResult(operationId, terminal, remoteJobId, detail, artifacts);
    if (terminal == Phase.DELIVERED) {
      outcomes.info(operationId, remoteJobId, "operation {} delivered: {}", operationId, detail);
    } else {
      outcomes.warn(
          operationId, remoteJobId, "operation {} {}: {}", operationId, terminal.wire(), detail);
    }
    return Step.DONE;
  }

  @Override
  public void resolveReconciliation(JsonNode payload) {
    ResolutionPayload.Parsed parsed = ResolutionPayload.parse(payload);
    String shown = ResolutionPayload.shown(payload);
    if (parsed.problem() != null) {
      refuse(shown, parsed.problem());
      return;
    }
    Optional<String> problem = problemWith(parsed.resolution(), checkedResolutions());
    if (problem.isPresent()) {
      refuse(shown, problem.get());
      return;
    }
    pending = new Submission(parsed.resolution(), shown, false, null);
  }

  @Override
  public String resolve(ReviewResolution resolution) {
    String accepted = "accepted " + resolution.parsedDecision().orElseThrow().wire();
    if (!checkedResolutions()) {
      pending = new Submission(resolution, String.valueOf(resolution), false, null);
      return accepted;
    }
    Verdict verdict = new Verdict();
    pending = new Submission(resolution, String.valueOf(resolution), false, verdict);
    Workflow.await(verdict::decided);
    if (verdict.refusal() != null) {
      throw ApplicationFailure.newNonRetryableFailure(verdict.refusal(), "ResolutionRefused");
    }
    return accepted;
  }

  @Override
  public void validateResolve(ReviewResolution resolution) {
    // A validator may not ask for the version: it checks whole, which only refuses more.
    problemWith(resolution, true)
        .ifPresent(
            problem -> {
              outcomes.warn(
                  operationId,
                  remoteJobId,
                  "operation {}: resolution refused: {}",
                  operationId,
                  problem);
              throw new IllegalArgumentException(problem);
            });
  }

  private Optional<String> problemWith(ReviewResolution resolution, boolean whole) {
    if (resolution == null) {
      return Optional.of("the resolution is empty");
    }
    if (phase != Phase.IN_REVIEW || pending != null) {
      return Optional.of(
          "operation " + operationId + " is not in review (phase " + phase.wire() + ")");
    }
    if (!whole) {
      return resolution.problem();
    }
    if (applyingResolution) {
      return Optional.of(
          "operation " + operationId + " is applying another resolution; ask again shortly");
    }
    Optional<String> problem = resolution.problemAsWhole();
    if (problem.isPresent()) {
      return problem;
    }
    return problemForEvidence(resolution);
  }

  // Cancellation (CANCEL_WITH_MEANING, version 1).

  private boolean cancellable() {
    return lifecycleVersion != null && lifecycleVersion >= 1;
  }

  /**
   * Runs the operation's steps in a scope that a cancel request stops (ours through {@link
   * #cancel}, or Temporal's), then, if one came, ends the operation according to where it stood.
   * After a cancel through {@link #cancel} the workflow completes with a result that says how the
   * operation ended and why; after a Temporal cancel request it closes as cancelled, once the
   * ledger has recorded the end (Temporal closes a workflow whose cancel was requested that way).
   */
  private OperationResult runCancellable(GenerationRequest request) {
    work = Workflow.newCancellationScope(() -> runSteps(request, Step.DISPATCH));
    if (cancelRequest != null) {
      work.cancel(cancelRequest.describe());
    }
    try {
      work.run();
    } catch (CanceledFailure stopped) {
      // Whichever step it stopped, the bookkeeping below reads where the operation stands.
    } catch (ActivityFailure failure) {
      // An activity stopped by the cancel request (an observation poll) reports it this way.
      if (!(failure.getCause() instanceof CanceledFailure) || !work.isCancelRequested()) {
        throw failure;
      }
    }
    if (work.isCancelRequested()) {
      String temporalReason = CancellationScope.current().getCancellationReason();
      Workflow.newDetachedCancellationScope(() -> endAfterCancel(request, temporalReason)).run();
    }
    return result;
  }

  /**
   * The bookkeeping of a cancellation, in a detached scope so that a cancel request cannot stop it:
   *
   * <ol>
   *   <li>a review opened because a POST answered unknown while being cancelled waits for its
   *       resolution first: the render may exist and be paid for, and only an operator can say;
   *   <li>a render Genace accepted is still observed and delivered if the request asks for it;
   *   <li>the ledger ends the operation under a fenced write, recording who and why.
   * </ol>
   */
  private void endAfterCancel(GenerationRequest request, String temporalReason) {
    if (cancelRequest == null) {
      cancelRequest = CancelRequest.fromTemporal(temporalReason);
    }
    CancelRequest cancel = cancelRequest;
    log.warn("operation {}: {} (phase {})", operationId, cancel.describe(), phase.wire());
    Workflow.getMetricsScope().counter("genace_operations_cancelled").inc(1);
    Step resume = result == null && phase == Phase.OBSERVING ? Step.OBSERVE : null;
    if (result == null && phase == Phase.IN_REVIEW && reviewOpenedAfterCancel) {
      setPhase(
          Phase.IN_REVIEW,
          "a POST answered unknown while being cancelled: waiting for an operator ("
              + cancel.describe()
              + ")");
      Step next = awaitResolution();
      resume = next == Step.OBSERVE ? Step.OBSERVE : null;
    }
    if (resume != null && cancel.deliversRendering()) {
      try {
        runSteps(request, resume);
      } catch (CanceledFailure noDispatch) {
        // The render was lost on the way (an operator said not_submitted): no POST after a cancel.
      }
    }
    CancelOutcome ended = endInLedger(cancel);
    while (result == null && ended.phase() == Phase.IN_REVIEW) {
      inReview(ReviewReason.DISPATCH_INTERRUPTED, "cancelled while a POST may have left", null);
      awaitResolution();
      ended = endInLedger(cancel);
    }
    if (result == null) {
      remoteJobId = ended.remoteJobId() == null ? remoteJobId : ended.remoteJobId();
      finish(
          ended.phase(),
          cancel.describe()
              + (remoteJobId == null ? "; no render was accepted" : "; remote job recorded"));
    } else {
      result =
          new OperationResult(
              operationId,
              result.phase(),
              result.remoteJobId(),
              result.detail() + " (" + cancel.describe() + ")",
              result.artifacts());
      setPhase(result.phase(), result.detail());
    }
  }

  private CancelOutcome endInLedger(CancelRequest cancel) {
    return activity(CancelActivities.class, LEDGER_STEP, "record the cancellation")
        .endCancelled(operationId, cancel.requestedBy(), cancel.reason());
  }

  /** The POST cannot be taken back: once sent, a cancel request waits for its recorded outcome. */
  private DispatchResult dispatchToTheEnd(GenerationRequest request) {
    if (!cancellable()) {
      return dispatchOnce(request);
    }
    if (work.isCancelRequested()) {
      // Also on the way to delivering a cancelled render: a cancelled operation never POSTs.
      throw new CanceledFailure("cancelled before dispatch");
    }
    DispatchResult[] dispatched = new DispatchResult[1];
    Workflow.newDetachedCancellationScope(() -> dispatched[0] = dispatchOnce(request)).run();
    return dispatched[0];
  }

  /**
   * A review is recorded even when a cancel request arrives meanwhile: it may hold a paid render.
   */
  private ReviewOpened recordReview(ReviewReason reason, String detail) {
    ReviewActivities reviews =
        activity(ReviewActivities.class, LEDGER_STEP, "open review: " + reason.wire());
    if (!cancellable()) {
      return reviews.openReview(operationId, reason, detail);
    }
    ReviewOpened[] opened = new ReviewOpened[1];
    Workflow.newDetachedCancellationScope(
            () -> opened[0] = reviews.openReview(operationId, reason, detail))
        .run();
    if (work.isCancelRequested()
        && (reason == ReviewReason.POST_OUTCOME_UNKNOWN
            || reason == ReviewReason.DISPATCH_INTERRUPTED)) {
      reviewOpenedAfterCancel = true;
    }
    return opened[0];
  }

  /**
   * The render succeeded and is paid for: a delivery under way finishes, so that its manifest is
   * recorded; one not yet started when the cancel arrived starts only if the cancel asked for the
   * render to be delivered.
   */
  private DeliveryResult deliverToTheEnd() {
    DeliveryActivities delivery =
        activity(DeliveryActivities.class, DELIVER, "copy artifacts of " + remoteJobId);
    if (!cancellable()) {
      return delivery.deliver(operationId);
    }
    if (work.isCancelRequested() && (cancelRequest == null || !cancelRequest.deliversRendering())) {
      throw new CanceledFailure("cancelled before delivery");
    }
    DeliveryResult[] delivered = new DeliveryResult[1];
    Workflow.newDetachedCancellationScope(() -> delivered[0] = delivery.deliver(operationId)).run();
    return delivered[0];
  }

  @Override
  public String cancel(CancelRequest request) {
    if (cancelRequest != null) {
      return "already cancelling (" + cancelRequest.describe() + "); nothing changed";
    }
    cancelRequest = request;
    if (work != null) {
      work.cancel(request.describe());
    }
    return "cancelling from phase " + phase.wire() + ": " + request.describe();
  }

  @Override
  public void validateCancel(CancelRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("the cancel request is empty");
    }
    request
        .problem()
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(problem);
            });
    if (result != null) {
      throw new IllegalArgumentException(
          "operation " + operationId + " has already ended " + result.phase().wire());
    }
    if (lifecycleVersion != null && !cancellable()) {
      throw new IllegalArgumentException(
          "operation "
              + operationId
              + " was started by a worker without cancellation; cancel its workflow through"
              + " Temporal (the orphan sweeper then puts it in review)");
    }
  }

  @Override
  public OperationView describe() {
    return new OperationView(
        operationId,
        phase,
        remoteJobId,
        lastRemoteStatus == null ? null : lastRemoteStatus.wire(),
        dispatchAttempts,
        review,
        List.copyOf(rejectedResolutions),
        artifacts,
        phase == Phase.IN_REVIEW && !gatheringEvidence && pending == null && !applyingResolution);
  }

  private void setPhase(Phase next, String details) {
    phase = next;
    List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
    updates.add(GenerationSearchAttributes.PHASE.valueSet(next.wire()));
    updates.add(GenerationSearchAttributes.NEEDS_REVIEW.valueSet(next == Phase.IN_REVIEW));
    if (remoteJobId != null) {
      updates.add(GenerationSearchAttributes.REMOTE_JOB_ID.valueSet(remoteJobId));
    }
    Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
    phaseDetails = details;
    showDetails();
  }

  /**
   * The Web UI's current details: the phase and what it waits for, the review's evidence, the
   * remote job and the latest refused resolutions. Metadata only, no command: refreshing it changes
   * no history.
   */
  private void showDetails() {
    StringBuilder details = new StringBuilder("**" + phase.wire() + "** — " + phaseDetails);
    if (phase == Phase.IN_REVIEW && review != null && review.evidence() != null) {
      details.append("\n\nevidence: ").append(review.evidence().summary());
    }
    if (remoteJobId != null) {
      details.append("\n\nremote job: `").append(remoteJobId).append('`');
    }
    int shown = Math.min(REFUSALS_SHOWN, rejectedResolutions.size());
    if (shown > 0) {
      details.append("\n\nrefused resolutions (latest last):");
      rejectedResolutions
          .subList(rejectedResolutions.size() - shown, rejectedResolutions.size())
          .forEach(refusal -> details.append("\n- ").append(refusal));
    }
    Workflow.setCurrentDetails(details.toString());
  }

  private static <T> T activity(Class<T> type, ActivityOptions options, String summary) {
    return Workflow.newActivityStub(
        type, ActivityOptions.newBuilder(options).setSummary(summary).build());
  }

  private static String describe(ActivityFailure failure) {
    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  // ---- Reviews: resolutions checked whole, evidence, self-settling --------------------------

  /** Whether resolutions are checked whole ({@value #CHECKED_RESOLUTIONS} version 1). */
  private boolean checkedResolutions() {
    return Workflow.getVersion(CHECKED_RESOLUTIONS, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /**
   * Asks Genace what it knows about the operation; with exactly one job carrying its id (and
   * self-settling on) the review resolves itself. Without evidence (Genace unreachable for every
   * attempt) the review simply waits for an operator.
   */
  private void gatherEvidence(String seenJobId) {
    gatheringEvidence = true;
    ReviewEvidence evidence;
    try {
      evidence =
          activity(EvidenceActivities.class, EVIDENCE, "gather evidence on Genace")
              .gatherEvidence(operationId, seenJobId);
    } catch (ActivityFailure failure) {
      log.warn("operation {}: no evidence gathered: {}", operationId, describe(failure));
      return;
    } finally {
      gatheringEvidence = false;
    }
    review = review.withEvidence(evidence);
    if (evidence.duplicates()) {
      log.error("operation {}: {}", operationId, evidence.summary());
    }
    // An operator who answered while the evidence was gathered goes first.
    if (evidence.selfSettleJobId() != null && pending == null) {
      ReviewResolution settled =
          new ReviewResolution(
              ReviewDecision.FOUND_REMOTE_JOB.wire(),
              evidence.selfSettleJobId(),
              "settled by itself: " + evidence.summary(),
              RECONCILER);
      pending = new Submission(settled, "self-settling", true, null);
      log.info("operation {}: review settles itself with {}", operationId, settled.remoteJobId());
    }
    showDetails();
  }

  /**
   * Refuses {@code not_submitted} while Genace shows a job carrying this operation id: dispatching
   * again would pay for a second render.
   */
  private Optional<String> problemForEvidence(ReviewResolution resolution) {
    ReviewEvidence evidence = review == null ? null : review.evidence();
    if (evidence == null
        || evidence.candidates().isEmpty()
        || resolution.parsedDecision().orElse(null) != ReviewDecision.NOT_SUBMITTED) {
      return Optional.empty();
    }
    return Optional.of(
        "not_submitted refused: Genace holds "
            + evidence.summary()
            + "; resolve found_remote_job (or abandon)");
  }

  /**
   * Checks a resolution where it names a job on Genace, then records it in the ledger.
   *
   * @return the refusal, if any; the review then stays open and resolvable
   */
  private Optional<String> applyResolution(Submission submission) {
    ReviewResolution resolution = submission.resolution();
    ReviewActivities steps =
        activity(ReviewActivities.class, LEDGER_STEP, "record resolution " + resolution.decision());
    if (!checkedResolutions()) {
      steps.recordResolution(operationId, resolution);
      return Optional.empty();
    }
    Optional<String> refusal = problemForEvidence(resolution);
    if (refusal.isEmpty()
        && !submission.prechecked()
        && resolution.parsedDecision().orElseThrow() == ReviewDecision.FOUND_REMOTE_JOB) {
      refusal = checkOnGenace(resolution.remoteJobId().trim());
    }
    if (refusal.isPresent()) {
      return refusal;
    }
    try {
      steps.recordResolution(operationId, resolution);
      return Optional.empty();
    } catch (ActivityFailure failure) {
      if (failure.getCause() instanceof ApplicationFailure app && app.isNonRetryable()) {
        return Optional.of("the ledger refused it: " + app.getOriginalMessage());
      }
      throw failure;
    }
  }

  private Optional<String> checkOnGenace(String jobId) {
    try {
      JobCheck check =
          activity(EvidenceActivities.class, CHECK_JOB, "GET /v1/generations/" + jobId + " (check)")
              .checkFoundJob(operationId, jobId);
      return Optional.ofNullable(check.refusal());
    } catch (ActivityFailure failure) {
      return Optional.of("could not read job " + jobId + " on Genace: " + describe(failure));
    }
  }

  /** Records a refused resolution where describe and the Web UI show it, and counts it. */
  private void refuse(String shown, String reason) {
    rejectedResolutions.add("refused " + shown + ": " + reason);
    outcomes.warn(
        operationId,
        remoteJobId,
        "operation {}: resolution refused: {} (payload {})",
        operationId,
        reason,
        shown);
    Workflow.getMetricsScope().counter("genace_review_resolutions_refused").inc(1);
    showDetails();
  }

  /**
   * A resolution waiting to be applied.
   *
   * @param shown how a refusal names it
   * @param prechecked already checked on Genace (a review settling itself from its evidence)
   * @param verdict where an update waits for the outcome; null for a signal
   */
  private record Submission(
      ReviewResolution resolution, String shown, boolean prechecked, Verdict verdict) {}

  /** The outcome an update handler waits for. */
  private static final class Verdict {
    private boolean decided;
    private String refusal;

    void decide(String refusalOrNull) {
      refusal = refusalOrNull;
      decided = true;
    }

    boolean decided() {
      return decided;
    }

    String refusal() {
      return refusal;
    }
  }
}
