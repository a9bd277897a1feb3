package com.genace.activities.recovery;

import com.genace.client.GenerationWorkflow;
import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.filter.v1.StartTimeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc.WorkflowServiceBlockingStub;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The operations whose generation workflows Temporal's visibility lists: by a list query, or, on a
 * server that answers none (the Java test server), by its lists of open and closed executions
 * filtered by start time. Each call is bounded at 30 s.
 */
public final class GenerationRuns {

  private static final String TYPE = "GenerationWorkflow";

  private final WorkflowClient client;

  public GenerationRuns(WorkflowClient client) {
    this.client = client;
  }

  /**
   * Every operation whose workflow started or closed since {@code since}. Without list queries: the
   * open ones, and the closed ones that started since (a run closed since that started before is
   * left to the ledger's own walk).
   */
  public List<String> startedOrClosedSince(Instant since) {
    String query =
        "WorkflowType = '"
            + TYPE
            + "' AND (StartTime >= '"
            + since
            + "' OR CloseTime >= '"
            + since
            + "')";
    return list(query, Integer.MAX_VALUE, since, Instant.now().plusSeconds(3600), true);
  }

  /**
   * Up to {@code limit} operations whose workflow runs, newest first where the server orders them
   * (a restore loses the newest rows).
   */
  public List<String> running(int limit) {
    String query = "WorkflowType = '" + TYPE + "' AND ExecutionStatus = 'Running'";
    return list(query, limit, Instant.EPOCH, Instant.now().plusSeconds(3600), false);
  }

  private List<String> list(
      String query, int limit, Instant earliest, Instant latest, boolean closedToo) {
    Set<String> ids = new LinkedHashSet<>();
    try {
      ByteString page = ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse response =
            stub()
                .listWorkflowExecutions(
                    ListWorkflowExecutionsRequest.newBuilder()
                        .setNamespace(namespace())
                        .setQuery(query)
                        .setNextPageToken(page)
                        .build());
        response.getExecutionsList().forEach(info -> add(ids, info));
        page = response.getNextPageToken();
      } while (!page.isEmpty() && ids.size() < limit);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED
          && e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
        throw e;
      }
      listedWithoutQuery(ids, limit, earliest, latest, closedToo);
    }
    return ids.stream().limit(limit).toList();
  }

  private void listedWithoutQuery(
      Set<String> ids, int limit, Instant earliest, Instant latest, boolean closedToo) {
    StartTimeFilter window =
        StartTimeFilter.newBuilder()
            .setEarliestTime(Timestamp.newBuilder().setSeconds(earliest.getEpochSecond()))
            .setLatestTime(Timestamp.newBuilder().setSeconds(latest.getEpochSecond()))
            .build();
    ByteString page = ByteString.EMPTY;
    do {
      ListOpenWorkflowExecutionsResponse open =
          stub()
              .listOpenWorkflowExecutions(
                  ListOpenWorkflowExecutionsRequest.newBuilder()
                      .setNamespace(namespace())
                      .setStartTimeFilter(window)
                      .setNextPageToken(page)
                      .build());
      open.getExecutionsList().forEach(info -> add(ids, info));
      page = open.getNextPageToken();
    } while (!page.isEmpty() && ids.size() < limit);
    if (!closedToo) {
      return;
    }
    do {
      ListClosedWorkflowExecutionsResponse closed =
          stub()
              .listClosedWorkflowExecutions(
                  ListClosedWorkflowExecutionsRequest.newBuilder()
                      .setNamespace(namespace())
                      .setStartTimeFilter(window)
                      .setNextPageToken(page)
                      .build());
      closed.getExecutionsList().forEach(info -> add(ids, info));
      page = closed.getNextPageToken();
    } while (!page.isEmpty());
  }

  private static void add(Set<String> ids, WorkflowExecutionInfo info) {
    String workflowId = info.getExecution().getWorkflowId();
    if (info.getType().getName().equals(TYPE)
        && workflowId.startsWith(GenerationWorkflow.WORKFLOW_ID_PREFIX)) {
      ids.add(workflowId.substring(GenerationWorkflow.WORKFLOW_ID_PREFIX.length()));
    }
  }

  private WorkflowServiceBlockingStub stub() {
    return client.getWorkflowServiceStubs().blockingStub().withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private String namespace() {
    return client.getOptions().getNamespace();
  }
}
