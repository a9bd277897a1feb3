package com.genace.workflows;

import com.genace.client.CarriedState;
import com.genace.client.Step;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewCase;
import com.genace.client.review.ReviewResolution;
import com.genace.workflows.review.ReviewActivities;
import com.genace.workflows.review.ReviewOpened;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Optional;

/**
 * An uncertainty review: opened in the ledger, evidence gathered on Genace, then a wait without
 * limit for a resolution (reminding periodically), applied one at a time until one is accepted. The
 * resolution decides the next step: {@code found_remote_job} observes the job it names, {@code
 * not_submitted} dispatches again, {@code abandon} ends the operation.
 *
 * <p>The reminders back off from hourly to daily, and a long run continues as new while it waits
 * ({@link RunChain}).
 */
final class ReviewStep {

  static final Duration REVIEW_REMINDER_INTERVAL = Duration.ofHours(1);

  /** Reminders double from {@link #REVIEW_REMINDER_INTERVAL} to this. */
  static final Duration MAX_REMINDER_INTERVAL = Duration.ofDays(1);

  private static final OperationLog outcomes = OperationLog.ofWorkflow();

  private final OperationState operation;
  private final Cancellation cancellation;
  private final ResolutionInbox inbox;
  private final ResolutionCheck check;
  private final EvidenceGathering evidence;
  private final RunChain chain;

  /** Reminders sent while this review waits, for their backoff. */
  private int reminders;

  /**
   * Whether the ERROR that calls an operator was written for this review: once, when the review
   * waits for one after its evidence (a review that settles itself never writes it).
   */
  private boolean operatorCalled;

  /**
   * When the next reminder is due (epoch millis, Temporal's clock), 0 until the wait for it starts.
   * From {@link VersionMarkers#BOUNDED_WAITS} a resolution refused meanwhile does not put it off,
   * and a continued run takes it over; 0.1.0 started a full interval after each.
   */
  private long nextReminderAt;

  ReviewStep(
      OperationState operation,
      Cancellation cancellation,
      ResolutionInbox inbox,
      ResolutionCheck check,
      RunChain chain) {
    this.operation = operation;
    this.cancellation = cancellation;
    this.inbox = inbox;
    this.check = check;
    this.evidence = new EvidenceGathering(operation, inbox);
    this.chain = chain;
  }

  /** A continued run goes on waiting for the review the previous run carried. */
  Step resume(CarriedState carried) {
    reminders = carried.waitsInARow();
    operatorCalled = true; // the run that carried the review waited for an operator, and said so
    nextReminderAt = chain.carriesReminders() ? carried.nextReminderAtMillis() : 0;
    operation.setPhase(
        Phase.IN_REVIEW, "waiting for an operator: " + carried.review().reason().wire());
    return Step.REVIEW;
  }

  /**
   * Opens a review in the ledger, which may answer that it holds an accepted job already (then the
   * job is observed) or, for an unknown POST outcome, that no POST can have left (then the
   * operation is dispatched again: {@link Step#DISPATCH}). The opening is recorded even when a
   * cancel request arrives meanwhile: the review may hold a paid render.
   */
  Step open(ReviewReason reason, String detail, String evidenceRemoteJobId) {
    ReviewActivities ledger = ActivityStubs.ledger("open review: " + reason.wire());
    ReviewOpened opened;
    try {
      opened =
          cancellation.runDetached(
              () -> ledger.openReview(operation.operationId(), reason, detail));
    } catch (ActivityFailure failure) {
      Optional<Phase> ended = ActivityFailures.endedInLedger(failure);
      if (ended.isEmpty()) {
        throw failure;
      }
      // The operation ended in the ledger meanwhile: the workflow ends the same way.
      return operation.finish(
          ended.get(), ((ApplicationFailure) failure.getCause()).getOriginalMessage());
    }
    if (opened.nothingSent()) {
      outcomes.warn(
          operation.operationId(),
          null,
          "operation {}: {}, but the ledger shows that no POST left: no review needed",
          operation.operationId(),
          detail);
      return Step.DISPATCH;
    }
    cancellation.reviewOpened(reason);
    if (!opened.inReview()) {
      operation.recordRemoteJob(opened.acceptedRemoteJobId());
      outcomes.info(
          operation.operationId(),
          operation.remoteJobId(),
          "operation {}: the ledger holds accepted job",
          operation.operationId());
      return Step.OBSERVE;
    }
    return enter(opened.reason(), detail, evidenceRemoteJobId);
  }

  /** The ledger holds the review already: the workflow shows it and waits for its resolution. */
  Step enter(ReviewReason reason, String detail, String evidenceRemoteJobId) {
    operation.openReview(new ReviewCase(reason, detail, evidenceRemoteJobId, null, null));
    reminders = 0;
    nextReminderAt = 0;
    operatorCalled = false;
    operation.setPhase(Phase.IN_REVIEW, "waiting for an operator: " + reason.wire());
    // A WARN, not yet an ERROR: the evidence gathered next may settle the review by itself.
    outcomes.warn(
        operation.operationId(),
        logJobId(evidenceRemoteJobId),
        "operation {} opened a review: {} ({}); gathering evidence on Genace",
        operation.operationId(),
        reason.wire(),
        detail);
    evidence.gather(evidenceRemoteJobId);
    return Step.REVIEW;
  }

  Step awaitResolution() {
    while (true) {
      if (!inbox.hasPending()) {
        callOperator();
      }
      if (!awaitSubmission()) {
        remind();
      }
      if (!inbox.hasPending()) {
        // The reminder, or a history grown long (refused signals add to it too).
        chain.continueIfDue(Step.REVIEW, 0, reminders, nextReminderAt, inbox::idle);
        continue;
      }
      ResolutionInbox.Submission submission = inbox.take();
      Optional<String> refusal =
          check.checkAndRecord(submission.resolution(), submission.prechecked());
      inbox.applied(submission, refusal);
      if (operation.ended()) {
        return Step.DONE;
      }
      if (refusal.isEmpty()) {
        return accept(submission.resolution());
      }
    }
  }

  /**
   * Waits for a resolution until the next reminder is due or the run should continue as new;
   * whether the wait ended before the reminder.
   */
  private boolean awaitSubmission() {
    Duration doubled = REVIEW_REMINDER_INTERVAL.multipliedBy(1L << Math.min(reminders, 10));
    Duration interval =
        doubled.compareTo(MAX_REMINDER_INTERVAL) > 0 ? MAX_REMINDER_INTERVAL : doubled;
    String summary =
        "waiting for an operator: "
            + operation.review().reason().wire()
            + " (reminder in "
            + interval.toHours()
            + " h)";
    if (!chain.carriesReminders()) {
      return Timers.await(interval, summary, () -> inbox.hasPending() || chain.due());
    }
    long now = Workflow.currentTimeMillis();
    if (nextReminderAt == 0) {
      nextReminderAt = now + interval.toMillis();
    }
    long left = nextReminderAt - now;
    boolean arrived =
        left <= 0
            ? inbox.hasPending() || chain.due()
            : Timers.await(
                Duration.ofMillis(left), summary, () -> inbox.hasPending() || chain.due());
    if (!arrived) {
      nextReminderAt = 0; // the reminder is due: the next interval starts from now
    }
    return arrived;
  }

  /** Whether an operator's resolution would be taken now. */
  boolean acceptsResolution() {
    return operation.phase() == Phase.IN_REVIEW && !evidence.gathering() && inbox.idle();
  }

  /**
   * The one ERROR of a review: it waits for an operator now that its evidence is in (none settled
   * it, or what settled it was refused). Written once per review, not again for a refused
   * resolution or a continued run.
   */
  private void callOperator() {
    if (operatorCalled) {
      return;
    }
    operatorCalled = true;
    ReviewCase review = operation.review();
    outcomes.error(
        operation.operationId(),
        logJobId(review.evidenceRemoteJobId()),
        "operation {} needs review: {} ({}); evidence: {}",
        operation.operationId(),
        review.reason().wire(),
        review.detail(),
        review.evidence() == null ? "none gathered" : review.evidence().summary());
  }

  private String logJobId(String evidenceRemoteJobId) {
    return operation.remoteJobId() != null ? operation.remoteJobId() : evidenceRemoteJobId;
  }

  private void remind() {
    reminders++;
    outcomes.warn(
        operation.operationId(),
        operation.remoteJobId(),
        "operation {} still waits for review: {}",
        operation.operationId(),
        operation.review().reason().wire());
    WorkflowCounters.increment(WorkflowCounters.REVIEW_REMINDERS);
  }

  private Step accept(ReviewResolution resolution) {
    operation.recordReview(operation.review().withResolution(resolution));
    ReviewDecision decision = resolution.parsedDecision().orElseThrow();
    outcomes.info(
        operation.operationId(),
        decision == ReviewDecision.FOUND_REMOTE_JOB
            ? resolution.remoteJobId().trim()
            : operation.remoteJobId(),
        "operation {}: resolution {} by {} accepted: {}",
        operation.operationId(),
        decision.wire(),
        resolution.resolvedBy(),
        resolution.reason());
    return switch (decision) {
      case FOUND_REMOTE_JOB -> {
        operation.recordRemoteJob(resolution.remoteJobId().trim());
        yield Step.OBSERVE;
      }
      case NOT_SUBMITTED -> Step.DISPATCH;
      case ABANDON -> operation.finish(Phase.ABANDONED, "abandoned: " + resolution.reason());
    };
  }
}
