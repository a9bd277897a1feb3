package com.genace.workflows.lifecycle;

import io.temporal.activity.ActivityInterface;

/** The ledger retention's one step. */
@ActivityInterface
public interface RetentionActivities {

  /**
   * One pass of the ledger retention: deletes the operations that ended more than the request's
   * window ago (but never sooner than Temporal deletes their closed workflows, so that an operation
   * id whose row is gone is free to start again), oldest end first, each with its transitions,
   * review evidence and reservations. Never an unfinished operation (a review included), and never
   * one with a reservation the allowance still counts (in flight, or made within the allowance's
   * window).
   *
   * <p>Bounded: batches of a few hundred operations, each a few short transactions of a bounded
   * number of rows, until none is due or the pass's bound in batches or time; the next pass goes
   * on. Idempotent and retried freely: a retried or overlapping pass deletes what is still due,
   * nothing else. A request that keeps everything deletes nothing.
   */
  RetentionReport applyRetention(RetentionRequest request);
}
