package com.genace.observation;

import io.temporal.activity.ActivityInterface;

/**
 * Observation by Temporal's retry-as-polling: each attempt of {@link #pollRemoteJob} is one status
 * read, and the wait between reads is Temporal's retry delay, so that nothing runs and no lease is
 * held while a render takes its time.
 *
 * <p>Contract of one attempt: reads the operation's durable remote job id from the ledger, GETs the
 * job once, and records a newer snapshot under a freshly claimed observe lease that it releases
 * before returning (also when it fails). It returns once the job is terminal or the operation went
 * to review; otherwise it fails with a retryable {@code ApplicationFailure} of type {@link
 * #NOT_TERMINAL_YET} (or another retryable type for a failed read) whose next retry delay is the
 * pacing: exponential backoff by attempt, jitter, and Genace's {@code Retry-After} when longer.
 * Idempotent: a retry after any crash starts again from the ledger. It never creates a render.
 */
@ActivityInterface
public interface ObservationActivities {

  /** Failure type: the remote job is still queued or running; poll again after the delay. */
  String NOT_TERMINAL_YET = "GenaceJobNotTerminal";

  /** Failure type: the status could not be read or recorded now; poll again after the delay. */
  String POLL_FAILED = "GenacePollFailed";

  ObservationResult pollRemoteJob(String operationId);

  /**
   * Observation by the ledger's poll schedule: puts the operation on the schedule that every
   * worker's poll loop reads and polls it once; a job already terminal (or the operation sent to
   * review) returns at once. Otherwise it returns without completing, and the loop that later sees
   * the end completes this activity with the same result {@link #pollRemoteJob} returns. Each later
   * poll is a ledger claim and a GET, with no Temporal call. An attempt that finds the operation
   * past observation returns the ledger's outcome at once.
   */
  ObservationResult awaitRemoteJob(String operationId);
}
