package com.genace.client;

/**
 * The task queues. Dispatch has its own queue so that a worker can stop polling it for tasks
 * (pause, drain, not ready) while workflows, observation and delivery keep running; observation has
 * its own so that thousands of observations starting (each reads its job's status once) never make
 * registration, review steps or delivery wait for a slot.
 */
public final class TaskQueues {

  /** Workflow tasks and the freely retried activities: registration, review, delivery. */
  public static final String OPERATIONS = "genace-operations";

  /**
   * Observation: the activity that waits on the ledger's poll schedule, completed by a worker's
   * poll loop.
   */
  public static final String OBSERVATION = "genace-observation";

  /** The paid, never-retried POST. */
  public static final String DISPATCH = "genace-dispatch";

  private TaskQueues() {}
}
