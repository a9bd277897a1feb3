package com.genace.ops.upgrade;

import com.genace.client.GenerationWorkflow;
import com.genace.worker.temporal.TemporalConnection;
import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc.WorkflowServiceBlockingStub;
import java.util.ArrayList;
import java.util.List;

/**
 * Every workflow run in the namespace, read through the Temporal client: how many runs an operation
 * has had, and the workflow tasks that failed in any run's history (a run that cannot replay on a
 * worker's code fails its workflow tasks, and Temporal retries them while the run stays open).
 */
final class WorkflowHistories {

  /**
   * @param failures each failed workflow task in words (workflow, run, cause, message)
   */
  record Counts(long workflowTaskFailures, long continuedAsNew, List<String> failures) {}

  private final WorkflowServiceBlockingStub service;
  private final String namespace;

  WorkflowHistories(TemporalConnection connection) {
    this.service = connection.stubs().blockingStub();
    this.namespace = connection.workflowClient().getOptions().getNamespace();
  }

  /** How many runs the operation's workflow has had (more than one: it continued as new). */
  long runs(String operationId) {
    return executions("WorkflowId = '" + GenerationWorkflow.workflowId(operationId) + "'").size();
  }

  /** Workflow task failures in every run's history, and the runs that continued as new. */
  Counts count() {
    long failed = 0;
    long continued = 0;
    List<String> failures = new ArrayList<>();
    for (WorkflowExecutionInfo run : executions("")) {
      if (run.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW) {
        continued++;
      }
      for (HistoryEvent event : history(run.getExecution())) {
        if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) {
          failed++;
          var attributes = event.getWorkflowTaskFailedEventAttributes();
          String message = attributes.getFailure().getMessage();
          failures.add(
              run.getExecution().getWorkflowId()
                  + " (run "
                  + run.getExecution().getRunId()
                  + "): workflow task failed, "
                  + attributes.getCause()
                  + ": "
                  + message.substring(0, Math.min(message.length(), 300)));
        }
      }
    }
    return new Counts(failed, continued, failures);
  }

  private List<WorkflowExecutionInfo> executions(String query) {
    List<WorkflowExecutionInfo> runs = new ArrayList<>();
    ByteString page = ByteString.EMPTY;
    do {
      ListWorkflowExecutionsResponse response =
          service.listWorkflowExecutions(
              ListWorkflowExecutionsRequest.newBuilder()
                  .setNamespace(namespace)
                  .setQuery(query)
                  .setPageSize(500)
                  .setNextPageToken(page)
                  .build());
      runs.addAll(response.getExecutionsList());
      page = response.getNextPageToken();
    } while (!page.isEmpty());
    return runs;
  }

  private List<HistoryEvent> history(WorkflowExecution execution) {
    List<HistoryEvent> events = new ArrayList<>();
    ByteString page = ByteString.EMPTY;
    do {
      GetWorkflowExecutionHistoryResponse response =
          service.getWorkflowExecutionHistory(
              GetWorkflowExecutionHistoryRequest.newBuilder()
                  .setNamespace(namespace)
                  .setExecution(execution)
                  .setNextPageToken(page)
                  .build());
      events.addAll(response.getHistory().getEventsList());
      page = response.getNextPageToken();
    } while (!page.isEmpty());
    return events;
  }
}
