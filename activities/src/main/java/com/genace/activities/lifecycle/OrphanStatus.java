package com.genace.activities.lifecycle;

import com.genace.client.GenerationWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orphan sweeper's rule, in one place: which status of an operation's workflow (as a describe
 * by workflow id reports it, the latest run) leaves nothing to finish the operation.
 *
 * <p>Only the statuses listed in {@link #CLOSED}: the run has ended and has no successor. Every
 * other status is left alone, because something may still finish the operation and a second run
 * beside it would be a second owner of the same row:
 *
 * <ul>
 *   <li>{@code RUNNING};
 *   <li>{@code PAUSED} (Temporal 1.30+): an operator paused it, and will unpause it;
 *   <li>{@code CONTINUED_AS_NEW}: its successor runs (a describe by id reports the successor, so
 *       this is seen only if a run is described by its own run id; listed all the same);
 *   <li>{@code UNSPECIFIED}, or a status this SDK does not know ({@code UNRECOGNIZED}, a newer
 *       server's): not proof of an end. The sweeper logs it as a warning.
 * </ul>
 */
public final class OrphanStatus {

  /** A run that ended and has no successor: its operation is an orphan. */
  static final Set<WorkflowExecutionStatus> CLOSED =
      EnumSet.of(
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED,
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED,
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT);

  /** Statuses this SDK knows that are not an end; anything else is not known to be one either. */
  private static final Set<WorkflowExecutionStatus> ALIVE =
      EnumSet.of(
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_PAUSED,
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW);

  private static final Logger log = LoggerFactory.getLogger(OrphanStatus.class);

  private OrphanStatus() {}

  /**
   * The workflow's close status ({@link OrphanStatus}), {@code MISSING} if there is none, empty
   * while something may still finish the operation (running, paused, continued as new, unknown).
   */
  public static Optional<String> describe(WorkflowClient client, String operationId) {
    DescribeWorkflowExecutionRequest request =
        DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(
                WorkflowExecution.newBuilder()
                    .setWorkflowId(GenerationWorkflow.workflowId(operationId)))
            .build();
    try {
      WorkflowExecutionStatus status =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(request)
              .getWorkflowExecutionInfo()
              .getStatus();
      if (OrphanStatus.unknown(status)) {
        log.warn(
            "operation {}: its workflow's status is {}, which this worker does not know as closed;"
                + " left alone (not an orphan)",
            operationId,
            OrphanStatus.name(status));
      }
      return OrphanStatus.closed(status);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.of("MISSING");
      }
      throw e;
    }
  }

  /**
   * The close status recorded with the orphan ({@code TERMINATED}, ...), or empty when the
   * operation must be left alone.
   */
  static Optional<String> closed(WorkflowExecutionStatus status) {
    return CLOSED.contains(status) ? Optional.of(name(status)) : Optional.empty();
  }

  /** Whether the status is one this rule does not know to be alive or closed (worth a warning). */
  static boolean unknown(WorkflowExecutionStatus status) {
    return status == null || !(CLOSED.contains(status) || ALIVE.contains(status));
  }

  /** {@code TERMINATED} for {@code WORKFLOW_EXECUTION_STATUS_TERMINATED}. */
  static String name(WorkflowExecutionStatus status) {
    return status == null ? "null" : status.name().replace("WORKFLOW_EXECUTION_STATUS_", "");
  }
}
