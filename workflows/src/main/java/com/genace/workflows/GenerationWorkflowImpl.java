package com.genace.workflows;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.delivery.DeliveryActivities;
import com.genace.delivery.DeliveryResult;
import com.genace.dispatch.DispatchActivities;
import com.genace.dispatch.DispatchOutcome;
import com.genace.dispatch.DispatchResult;
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
  private OperationResult result;

  @Override
  public OperationResult run(GenerationRequest request) {
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
    review = new ReviewCase(reason, detail, evidenceRemoteJobId, null, null);
    setPhase(Phase.IN_REVIEW, "waiting for an operator: " + reason.wire());
    log.warn("operation {} needs review: {} ({})", operationId, reason.wire(), detail);
    if (Workflow.getVersion(REVIEW_EVIDENCE, Workflow.DEFAULT_VERSION, 1) == 1) {
      gatherEvidence(evidenceRemoteJobId);
    }
    return Step.REVIEW;
  }

  private Step awaitResolution() {
    while (true) {
      while (!Workflow.await(REVIEW_REMINDER_INTERVAL, () -> pending != null)) {
        log.warn("operation {} still waits for review: {}", operationId, review.reason().wire());
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
      return switch (resolution.parsedDecision().orElseThrow()) {
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
    log.warn("operation {}: resolution {} refused: {}", operationId, shown, reason);
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
