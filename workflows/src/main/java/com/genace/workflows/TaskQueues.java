package com.genace.workflows;

/**
 * The task queues. Dispatch has its own queue so that a worker can stop polling it (pause, drain,
 * not ready) while workflows, observation and delivery keep running; observation has its own so
 * that thousands of status polls never make registration, review steps or delivery wait for a slot.
 */
public final class TaskQueues {

  /**
   * Workflow tasks and the freely retried activities: registration, review, deliver (and the long
   * observation of workflows started before polling observation).
   */
  public static final String OPERATIONS = "genace-operations";

  /** One status read per activity attempt; retried as the pacing of observation. */
  public static final String OBSERVATION = "genace-observation";

  /** The paid, never-retried POST. */
  public static final String DISPATCH = "genace-dispatch";

  private TaskQueues() {}
}
