package com.genace.activities.observation;

import com.genace.activities.ledger.ObservationWaiter;
import com.genace.activities.recovery.ActivityTypes;
import com.genace.client.GenerationWorkflow;
import com.genace.workflows.observation.ObservationResult;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.ActivityCanceledException;
import io.temporal.client.ActivityCompletionClient;
import io.temporal.client.ActivityNotExistsException;
import io.temporal.client.WorkflowClient;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the activity that waits for an operation's observation ({@link
 * ObservationActivities#awaitRemoteJob}) its outcome, by completing it by id.
 *
 * <p>The activity the ledger names (it registered on its first poll) is told directly. When none is
 * named, or the one named no longer waits, Temporal is asked which one does: the operation's
 * workflow's pending {@code AwaitRemoteJob}, if one has started. That covers an attempt Temporal
 * handed to a worker that froze or died before it could register, without a short timeout making
 * every long render cost Temporal an attempt every few minutes. An activity not started yet needs
 * no telling: its first poll finds the outcome in the ledger.
 */
public final class WaitingActivities {

  private static final Logger log = LoggerFactory.getLogger(WaitingActivities.class);

  /** The waiting activity's type, as Temporal names it. */
  static final String AWAIT_TYPE = ActivityTypes.AWAIT_REMOTE_JOB;

  private final WorkflowClient client;
  private final ActivityCompletionClient completions;

  public WaitingActivities(WorkflowClient client) {
    this.client = client;
    this.completions = client.newActivityCompletionClient();
  }

  /**
   * Completes the activity waiting for {@code operationId} with {@code outcome}.
   *
   * @return false if Temporal could not take it now (try again later); true once told, or when no
   *     started activity waits
   */
  public boolean tell(
      String operationId, Optional<ObservationWaiter> registered, ObservationResult outcome) {
    try {
      if (registered.isPresent() && complete(registered.get(), outcome)) {
        return true;
      }
      // One that stopped waiting between the look-up and the completion reads the ledger itself.
      startedAwait(operationId).ifPresent(waiter -> complete(waiter, outcome));
      return true;
    } catch (RuntimeException e) {
      log.warn("could not complete the observation of {}: {}", operationId, e.toString());
      return false;
    }
  }

  /** False if the activity does not wait (any more): it completed, timed out or was cancelled. */
  private boolean complete(ObservationWaiter waiter, ObservationResult outcome) {
    try {
      completions.complete(
          waiter.workflowId(), Optional.of(waiter.runId()), waiter.activityId(), outcome);
      return true;
    } catch (ActivityNotExistsException | ActivityCanceledException e) {
      return false;
    }
  }

  /** The operation's started {@code AwaitRemoteJob}, as Temporal sees it now. */
  Optional<ObservationWaiter> startedAwait(String operationId) {
    String workflowId = GenerationWorkflow.workflowId(operationId);
    DescribeWorkflowExecutionResponse described;
    try {
      described =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                      .build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty(); // no such workflow: nothing waits
      }
      throw e;
    }
    String runId = described.getWorkflowExecutionInfo().getExecution().getRunId();
    return described.getPendingActivitiesList().stream()
        .filter(pending -> pending.getActivityType().getName().equals(AWAIT_TYPE))
        .filter(
            pending -> pending.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED)
        .map(PendingActivityInfo::getActivityId)
        .findFirst()
        .map(activityId -> new ObservationWaiter(workflowId, runId, activityId));
  }
}
