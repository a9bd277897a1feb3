package com.genace.workflows;

import io.temporal.workflow.Workflow;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * The workflow's lines about an operation's outcomes, each carrying the fields an operator filters
 * on: {@value #OPERATION_ID}, {@value #WORKFLOW_ID} and, once known, {@value #REMOTE_JOB_ID}
 * (slf4j's MDC, set for the one line and removed after, since workflow threads are pooled). Given a
 * {@link Workflow#getLogger} logger, a line is written once, when the workflow decides, never on
 * replay.
 *
 * <p>Levels: {@code ERROR} when an operator must act (a review opened), {@code WARN} when an
 * operation ended without its artifacts or a resolution was refused, {@code INFO} otherwise.
 */
public final class OperationLog {

  public static final String OPERATION_ID = "operation_id";
  public static final String WORKFLOW_ID = "workflow_id";
  public static final String REMOTE_JOB_ID = "remote_job_id";

  /**
   * The name of the workflow's logger, which operators, the runbook and the observability tests
   * filter the workflow's lines on: the workflow implementation's class name since 0.1.0. Kept as a
   * name, not taken from the class, so that the log stays below the workflow that uses it and the
   * name stays the same wherever the class is.
   */
  public static final String WORKFLOW_LOGGER = "com.genace.workflows.GenerationWorkflowImpl";

  private final Logger log;

  private OperationLog(Logger log) {
    this.log = log;
  }

  /**
   * The workflow's outcome lines, whichever of its parts writes them: all go under {@link
   * #workflowLogger()}'s name.
   */
  static OperationLog ofWorkflow() {
    return new OperationLog(workflowLogger());
  }

  /** The workflow's logger ({@value #WORKFLOW_LOGGER}), for its other lines too. */
  static Logger workflowLogger() {
    return Workflow.getLogger(WORKFLOW_LOGGER);
  }

  void info(String operationId, String remoteJobId, String format, Object... args) {
    write(log::info, operationId, remoteJobId, format, args);
  }

  void warn(String operationId, String remoteJobId, String format, Object... args) {
    write(log::warn, operationId, remoteJobId, format, args);
  }

  void error(String operationId, String remoteJobId, String format, Object... args) {
    write(log::error, operationId, remoteJobId, format, args);
  }

  private static void write(
      BiConsumer<String, Object[]> level,
      String operationId,
      String remoteJobId,
      String format,
      Object[] args) {
    if (operationId != null) {
      MDC.put(OPERATION_ID, operationId);
    }
    MDC.put(WORKFLOW_ID, Workflow.getInfo().getWorkflowId());
    if (remoteJobId != null) {
      MDC.put(REMOTE_JOB_ID, remoteJobId);
    }
    try {
      level.accept(format, args);
    } finally {
      MDC.remove(OPERATION_ID);
      MDC.remove(WORKFLOW_ID);
      MDC.remove(REMOTE_JOB_ID);
    }
  }
}
