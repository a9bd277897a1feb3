package com.genace.worker.temporal;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.WorkflowTaskFailedEventAttributes;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.Optional;

/**
 * Why a workflow cannot run, when it cannot: its last workflow task failed (a non-determinism error
 * after a release changed the workflow's commands, or a bug) and none has completed since. Temporal
 * retries such a task for ever while the run stays {@code RUNNING}, so neither the run's status nor
 * the ledger shows it; its history does.
 */
public final class WorkflowTaskFailures {

  private WorkflowTaskFailures() {}

  /**
   * The latest workflow task failure of the workflow's current run that no completed workflow task
   * followed, as {@code "<cause>: <message>"}; empty when its last workflow task completed.
   */
  public static Optional<String> latest(
      WorkflowServiceStubs stubs, String namespace, String workflowId) {
    WorkflowExecution execution = WorkflowExecution.newBuilder().setWorkflowId(workflowId).build();
    Optional<String> failure = Optional.empty();
    ByteString page = ByteString.EMPTY;
    do {
      GetWorkflowExecutionHistoryResponse response =
          stubs
              .blockingStub()
              .getWorkflowExecutionHistory(
                  GetWorkflowExecutionHistoryRequest.newBuilder()
                      .setNamespace(namespace)
                      .setExecution(execution)
                      .setNextPageToken(page)
                      .build());
      for (HistoryEvent event : response.getHistory().getEventsList()) {
        if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) {
          failure = Optional.of(describe(event.getWorkflowTaskFailedEventAttributes()));
        } else if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
          failure = Optional.empty();
        }
      }
      page = response.getNextPageToken();
    } while (!page.isEmpty());
    return failure;
  }

  private static String describe(WorkflowTaskFailedEventAttributes failed) {
    String cause =
        failed.getCause().name().replaceFirst("^WORKFLOW_TASK_FAILED_CAUSE_", "").toLowerCase();
    Failure top = failed.getFailure();
    Failure root = top;
    while (root.hasCause()) {
      root = root.getCause();
    }
    String why = cause + ": " + firstLine(top.getMessage());
    return root == top ? why : why + " (caused by: " + firstLine(root.getMessage()) + ")";
  }

  /** The SDK puts the stack trace and the replay's ids after the first line. */
  private static String firstLine(String message) {
    int end = message.indexOf('\n');
    return end < 0 ? message : message.substring(0, end);
  }
}
