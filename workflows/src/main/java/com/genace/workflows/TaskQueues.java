package com.genace.workflows;

/**
 * The task queues. Dispatch has its own queue so that a worker can stop polling it (pause, drain,
 * not ready) while workflows, observation and delivery keep running.
 */
public final class TaskQueues {

  /** Workflow tasks and the freely retried activities: registration, review, observe, deliver. */
  public static final String OPERATIONS = "genace-operations";

  /** The paid, never-retried POST. */
  public static final String DISPATCH = "genace-dispatch";

  private TaskQueues() {}
}
