package com.genace.workflows;

import com.genace.delivery.DeliveryActivities;
import com.genace.delivery.DeliveryResult;
import com.genace.dispatch.DispatchActivities;
import com.genace.dispatch.DispatchOutcome;
import com.genace.dispatch.DispatchResult;
import com.genace.model.FailureTypes;
import com.genace.model.Phase;
import com.genace.model.RemoteStatus;
import com.genace.model.ReviewDecision;
import com.genace.model.ReviewReason;
import com.genace.observation.LegacyObservationActivities;
import com.genace.observation.ObservationActivities;
import com.genace.observation.ObservationResult;
import com.genace.review.ReviewActivities;
import com.genace.review.ReviewCase;
import com.genace.review.ReviewOpened;
import com.genace.review.ReviewResolution;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
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

  static final Duration MAX_NOT_SENT_BACKOFF = Duration.ofMinutes(1);

  private static final Logger log = Workflow.getLogger(GenerationWorkflowImpl.class);

  private static final RetryOptions RETRY_FREELY =
      RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(1))
          .setBackoffCoefficient(2)
          .setMaximumInterval(Duration.ofMinutes(1))
          .build();

  private static final ActivityOptions LEDGER_STEP =
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.OPERATIONS)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RETRY_FREELY)
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
  private Phase phase = Phase.PENDING;
  private String remoteJobId;
  private RemoteStatus lastRemoteStatus;
  private int dispatchAttempts;
  private ReviewCase review;
  private ReviewResolution pendingResolution;
  private final List<String> rejectedResolutions = new ArrayList<>();
  private OperationResult result;

  @Override
  public OperationResult run(GenerationRequest request) {
    requireValid(request);
    operationId = request.operationId();
    setPhase(Phase.PENDING, "registering the operation");
    activity(ReviewActivities.class, LEDGER_STEP, "register " + operationId).register(request);
    Step step = Step.DISPATCH;
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
    return result;
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
      DispatchResult dispatched = dispatchOnce(request);
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
    ReviewOpened opened =
        activity(ReviewActivities.class, LEDGER_STEP, "open review: " + reason.wire())
            .openReview(operationId, reason, detail);
    if (!opened.inReview()) {
      remoteJobId = opened.acceptedRemoteJobId();
      log.info("operation {}: the ledger holds accepted job {}", operationId, remoteJobId);
      return Step.OBSERVE;
    }
    return inReview(opened.reason(), detail, evidenceRemoteJobId);
  }

  /** The ledger holds the review already: the workflow waits for its resolution. */
  private Step inReview(ReviewReason reason, String detail, String evidenceRemoteJobId) {
    review = new ReviewCase(reason, detail, evidenceRemoteJobId, null);
    setPhase(Phase.IN_REVIEW, "waiting for an operator: " + reason.wire());
    log.warn("operation {} needs review: {} ({})", operationId, reason.wire(), detail);
    return Step.REVIEW;
  }

  private Step awaitResolution() {
    while (!Workflow.await(REVIEW_REMINDER_INTERVAL, () -> pendingResolution != null)) {
      log.warn("operation {} still waits for review: {}", operationId, review.reason().wire());
      Workflow.getMetricsScope().counter("genace_review_reminders").inc(1);
    }
    ReviewResolution resolution = pendingResolution;
    pendingResolution = null;
    activity(ReviewActivities.class, LEDGER_STEP, "record resolution " + resolution.decision())
        .recordResolution(operationId, resolution);
    review =
        new ReviewCase(review.reason(), review.detail(), review.evidenceRemoteJobId(), resolution);
    ReviewDecision decision = resolution.parsedDecision().orElseThrow();
    return switch (decision) {
      case FOUND_REMOTE_JOB -> {
        remoteJobId = resolution.remoteJobId().trim();
        yield Step.OBSERVE;
      }
      case NOT_SUBMITTED -> Step.DISPATCH;
      case ABANDON -> finish(Phase.ABANDONED, "abandoned: " + resolution.reason());
    };
  }

  private Step observe() {
    int version = Workflow.getVersion(OBSERVE_BY_POLLING, Workflow.DEFAULT_VERSION, 1);
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
    DeliveryResult delivered =
        activity(DeliveryActivities.class, DELIVER, "copy artifacts of " + remoteJobId)
            .deliver(operationId);
    return finish(Phase.DELIVERED, delivered.artifacts().size() + " artifact(s) delivered");
  }

  private Step finish(Phase terminal, String detail) {
    setPhase(terminal, detail);
    result = new OperationResult(operationId, terminal, remoteJobId, detail);
    return Step.DONE;
  }

  @Override
  public void resolveReconciliation(ReviewResolution resolution) {
    Optional<String> problem = problemWith(resolution);
    if (problem.isPresent()) {
      rejectedResolutions.add(problem.get());
      log.warn("operation {}: resolution refused: {}", operationId, problem.get());
      return;
    }
    pendingResolution = resolution;
  }

  @Override
  public String resolve(ReviewResolution resolution) {
    pendingResolution = resolution;
    return "accepted " + resolution.parsedDecision().orElseThrow().wire();
  }

  @Override
  public void validateResolve(ReviewResolution resolution) {
    problemWith(resolution)
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(problem);
            });
  }

  private Optional<String> problemWith(ReviewResolution resolution) {
    if (resolution == null) {
      return Optional.of("the resolution is empty");
    }
    if (phase != Phase.IN_REVIEW || pendingResolution != null) {
      return Optional.of(
          "operation " + operationId + " is not in review (phase " + phase.wire() + ")");
    }
    return resolution.problem();
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
        List.copyOf(rejectedResolutions));
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
    Workflow.setCurrentDetails(
        "**"
            + next.wire()
            + "** — "
            + details
            + (remoteJobId == null ? "" : "\n\nremote job: `" + remoteJobId + "`"));
  }

  private static <T> T activity(Class<T> type, ActivityOptions options, String summary) {
    return Workflow.newActivityStub(
        type, ActivityOptions.newBuilder(options).setSummary(summary).build());
  }

  private static String describe(ActivityFailure failure) {
    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }
}
