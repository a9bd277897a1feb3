package com.genace.workflows;

import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInfo;

/**
 * How long a run's history may grow before the operation continues as new from one of its waits.
 *
 * <p>{@value #MAX_EVENTS} events: an operation that is delivered without waiting records about 25,
 * one with a review and its resolution about 60, so no ordinary operation ever continues; a run
 * that waits (credits, a rate limit, a pause, an open review) continues after a few hundred turns.
 * Temporal refuses a history past 51,200 events and suggests continuing at 4,096 (or 4 MiB, which
 * {@link WorkflowInfo#isContinueAsNewSuggested} also reports); staying well under both keeps the
 * replay of a run after a worker restart or a cache eviction short.
 */
final class HistoryBudget {

  static final long MAX_EVENTS = 2_000;

  private HistoryBudget() {}

  /** Whether this run should continue as new at its next wait. */
  static boolean spent() {
    WorkflowInfo info = Workflow.getInfo();
    return info.getHistoryLength() >= MAX_EVENTS || info.isContinueAsNewSuggested();
  }
}
