package com.genace.activities.observation;

import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.ObservationWaiter;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.workflows.observation.ObservationActivities;
import com.genace.workflows.observation.ObservationResult;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import java.util.Optional;

/**
 * Observation by the ledger's poll schedule ({@link #awaitRemoteJob}): the operation goes on the
 * schedule, this activity makes its first status poll ({@link StatusPoll}), and a worker's {@link
 * PollLoop} makes each later one when it is due, then completes the waiting activity.
 *
 * <p>The history grows by a constant (one activity's scheduled, started and completed events,
 * whatever the number of polls), so a render of hours neither bloats the history nor needs
 * continue-as-new, and no workflow task runs between polls. Temporal sees no call per poll
 * (docs/performance.md).
 */
public final class ObservationActivitiesImpl implements ObservationActivities {

  private final OperationsLedger ledger;
  private final StatusPoll statusPoll;

  public ObservationActivitiesImpl(OperationsLedger ledger, StatusPoll statusPoll) {
    this.ledger = ledger;
    this.statusPoll = statusPoll;
  }

  /**
   * Puts the operation on the poll schedule, claimed for this attempt, and polls it once here: a
   * render already finished (the usual short one) then returns at once and costs the schedule
   * nothing more. Otherwise the next poll goes on the schedule and this returns without completing.
   * A worker that dies during this poll leaves the claim to run out (the lease's length), after
   * which any poll loop takes the operation over. A later attempt (its start-to-close timeout ran
   * out: a completion was lost, or the task was lost with a frozen worker) names itself again and
   * returns without polling.
   */
  @Override
  public ObservationResult awaitRemoteJob(String operationId) {
    ActivityExecutionContext context = Activity.getExecutionContext();
    ActivityInfo info = context.getInfo();
    ObservationWaiter waiter =
        new ObservationWaiter(
            info.getWorkflowId(), info.getRunId(), info.getActivityId(), PollTracing.current());
    boolean firstAttempt = info.getAttempt() == 1;
    Optional<DuePoll> claimed = ledger.polls().awaitObservation(operationId, waiter, firstAttempt);
    if (claimed.isEmpty()) {
      return statusPoll.ended(ledger.get(operationId), info.getAttempt());
    }
    if (!firstAttempt) {
      // A retry after the timeout only names itself as the waiter; the loops go on polling.
      context.doNotCompleteOnReturn();
      return null;
    }
    Optional<ObservationResult> outcome = pollClaimed(claimed.get());
    if (outcome.isEmpty()) {
      context.doNotCompleteOnReturn(); // a poll loop completes it (PollLoop)
      return null;
    }
    statusPoll.told(claimed.get(), outcome.get());
    return outcome.get();
  }

  /**
   * Polls an operation claimed from the schedule and puts its next poll on the schedule at once.
   * Empty when there is nothing to tell: the next poll is on the schedule (or another claim
   * overtook this one and has it), or the operation moved on without an observation's outcome
   * (abandoned) and left the schedule. Otherwise the outcome to tell the waiting activity, after
   * which {@link StatusPoll#told} ends the schedule.
   */
  Optional<ObservationResult> pollClaimed(DuePoll claimed) {
    PollStep step = statusPoll.poll(claimed);
    if (step.again().isPresent() && !ledger.polls().reschedule(claimed, step.again().get())) {
      return statusPoll.overtaken(claimed);
    }
    return step.outcome();
  }
}
