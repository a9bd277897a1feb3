package com.genace.activities.lifecycle;

import com.genace.activities.recovery.ActivityTypes;
import com.genace.client.GenerationWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
   * An operation's workflow as a describe shows it: its close status ({@code MISSING} if there is
   * none), empty while something may still finish the operation; and the types of its pending
   * activities.
   */
  public record Described(Optional<String> closed, Set<String> pendingActivities) {

    static final Described MISSING = new Described(Optional.of("MISSING"), Set.of());

    /** Whether the run went on past its dispatch (it observes or delivers a job). */
    public boolean pastDispatch() {
      return pendingActivities.stream().anyMatch(ActivityTypes.PAST_DISPATCH::contains);
    }

    /** Whether a dispatch attempt is pending: its POST may be in flight. */
    public boolean dispatching() {
      return pendingActivities.stream().anyMatch(ActivityTypes.DISPATCH::contains);
    }
  }

  /**
   * The workflow's close status ({@link OrphanStatus}), {@code MISSING} if there is none, empty
   * while something may still finish the operation (running, paused, continued as new, unknown).
   */
  public static Optional<String> describe(WorkflowClient client, String operationId) {
    return describeRun(client, operationId).closed();
  }

  /** The workflow's close status, as {@link #describe}, and its pending activities. */
  public static Described describeRun(WorkflowClient client, String operationId) {
    DescribeWorkflowExecutionRequest request =
        DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(
                WorkflowExecution.newBuilder()
                    .setWorkflowId(GenerationWorkflow.workflowId(operationId)))
            .build();
    try {
      DescribeWorkflowExecutionResponse described =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .describeWorkflowExecution(request);
      WorkflowExecutionStatus status = described.getWorkflowExecutionInfo().getStatus();
      if (OrphanStatus.unknown(status)) {
        log.warn(
            "operation {}: its workflow's status is {}, which this worker does not know as closed;"
                + " left alone (not an orphan)",
            operationId,
            OrphanStatus.name(status));
      }
      Set<String> pending =
          described.getPendingActivitiesList().stream()
              .map(activity -> activity.getActivityType().getName())
              .collect(Collectors.toUnmodifiableSet());
      return new Described(OrphanStatus.closed(status), pending);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Described.MISSING;
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
