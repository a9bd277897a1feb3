package com.genace.client;

import com.genace.client.review.ReviewCase;
import java.util.List;

/**
 * What a run hands to the run it continues as new with ({@link GenerationWorkflow#run}'s second
 * argument; clients pass none). A run continues only from a wait, where nothing is in flight: no
 * POST, no resolution being applied; the next run resumes that wait. A cancelled operation
 * continues only from the review it waits in before it ends (from {@link
 * VersionMarkers#BOUNDED_WAITS}), and carries its cancel request. The fields after {@code runs}
 * came later: a state carried by an earlier version has none (null, 0, false).
 *
 * @param step where the next run resumes: {@link Step#DISPATCH} (a dispatch waiting to be sent
 *     again; nothing was sent, as the ledger recorded) or {@link Step#REVIEW} (a review waiting for
 *     an operator)
 * @param dispatchAttempts the attempts so far
 * @param remoteJobId the remote job, if one is known
 * @param review the open review, with its evidence; null when dispatching
 * @param jobIdsSeen every job id an exchange of this operation brought to a review
 * @param refusals the latest refused resolutions (at most {@value #REFUSALS_CARRIED})
 * @param refusedInReview the latest one refused since the open review opened, or null
 * @param notSentInARow dispatch attempts in a row that provably sent nothing
 * @param waitsInARow dispatch waits in a row (their backoff), or review reminders so far
 * @param runs how many runs the operation has had before the next one
 * @param cancel the cancel request being handled, or null: the next run resumes the review wait of
 *     the cancel's bookkeeping, and the ledger holds the request too
 * @param nextReminderAtMillis when the review's next reminder is due (epoch millis, Temporal's
 *     clock), so that the reminders keep their cadence across runs; 0 when not waiting in review
 * @param refusalsInAll how many resolutions were refused over all runs ({@code refusals} lists the
 *     latest)
 * @param credits the estimated credits committed with the acceptance, or null (not accepted, or
 *     carried by an earlier version)
 */
public record CarriedState(
    Step step,
    int dispatchAttempts,
    String remoteJobId,
    ReviewCase review,
    List<String> jobIdsSeen,
    List<String> refusals,
    String refusedInReview,
    int notSentInARow,
    int waitsInARow,
    int runs,
    CancelRequest cancel,
    long nextReminderAtMillis,
    int refusalsInAll,
    Long credits) {

  /** How many refused resolutions a continued run keeps listing. */
  public static final int REFUSALS_CARRIED = 20;

  public CarriedState {
    jobIdsSeen = jobIdsSeen == null ? List.of() : List.copyOf(jobIdsSeen);
    refusals = refusals == null ? List.of() : List.copyOf(refusals);
  }
}
