package com.genace.activities.stats;

import com.genace.activities.genace.CreateOutcome;
import com.genace.workflows.model.RemoteStatus;

/**
 * Where the activities report what they did, injected by whoever runs them (the worker counts it in
 * its metrics registry; tools and tests pass {@link #NONE}) rather than bumped in a global
 * registry.
 */
public interface ActivityStats {

  ActivityStats NONE = new ActivityStats() {};

  /** Why a status poll gave no status. */
  enum PollFailure {
    /** Genace answered 404 for the remote job id. */
    NOT_FOUND,
    RATE_LIMITED,
    /** Genace refused the credentials (401, 403). */
    UNAUTHORIZED,
    /** 5xx, timeout, I/O error or a malformed answer. */
    ERROR
  }

  /** Who recorded a review's resolution. */
  enum Resolver {
    /** The review settled itself from its evidence. */
    RECONCILER,
    OPERATOR
  }

  /** Where a worker's poll loop failed (it goes on: a loop that stopped would poll nothing). */
  enum PollLoopFailure {
    /** The ledger's poll schedule could not be read (the database, most often). */
    CLAIM,
    /** Anything else: the poll threads refused work, or a bug. */
    LOOP
  }

  /** A POST was sent and ended so. */
  default void posted(CreateOutcome outcome) {}

  /** A status poll answered {@code status}. */
  default void polled(RemoteStatus status) {}

  /** A status poll failed. */
  default void pollFailed(PollFailure failure) {}

  /** The poll loop's pass failed; it waits and goes on. */
  default void pollLoopFailed(PollLoopFailure failure) {}

  /** A review's evidence was gathered (once per review opened). */
  default void reviewOpened() {}

  /**
   * A review's evidence shows several Genace jobs for one operation: it was paid more than once.
   */
  default void duplicateJobsFound() {}

  /** A review's resolution was recorded. */
  default void reviewResolved(Resolver by) {}

  /** A decision that spends again was refused for its approval ({@code reason}: unsigned, ...). */
  default void approvalRefused(String reason) {}

  /**
   * The ledger committed {@code credits} (the estimate of {@code model}) with the acceptance of an
   * operation of {@code account}: a POST Genace accepted, or a job a review found.
   */
  default void creditsCommitted(String account, String model, long credits) {}
}
