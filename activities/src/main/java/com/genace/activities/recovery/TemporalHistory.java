package com.genace.activities.recovery;

import com.genace.client.GenerationWorkflow;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.filter.v1.WorkflowExecutionFilter;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc.WorkflowServiceBlockingStub;
import io.temporal.client.WorkflowClient;
import io.temporal.common.converter.DataConverter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@link OperationHistory} on a Temporal service:
 *
 * <ol>
 *   <li>the runs of {@code generation/<operationId>} that visibility lists (a query by workflow id;
 *       on a server without list queries, such as the Java test server, its lists of open and
 *       closed executions filtered by workflow id), and the latest run as described, which
 *       visibility may not list yet;
 *   <li>each run's whole history, page by page, read by {@link RunEvents}; the runs a history names
 *       as continued from or continued as are read too, so that a chain of continue-as-new is whole
 *       however visibility lags;
 *   <li>at most {@value #MAX_RUNS} runs: a longer record says so in its evidence.
 * </ol>
 */
public final class TemporalHistory implements OperationHistory {

  /** The most runs read for one operation; a review continued daily for a year is ~400. */
  static final int MAX_RUNS = 1_000;

  private final WorkflowClient client;

  public TemporalHistory(WorkflowClient client) {
    this.client = client;
  }

  @Override
  public HistoryEvidence read(String operationId) {
    String workflowId = GenerationWorkflow.workflowId(operationId);
    try {
      Set<String> known = new LinkedHashSet<>(listedRuns(workflowId));
      latestRun(workflowId).ifPresent(known::add);
      Deque<String> toRead = new ArrayDeque<>(known);
      Set<String> read = new LinkedHashSet<>();
      List<RunRecord> runs = new ArrayList<>();
      while (!toRead.isEmpty() && read.size() < MAX_RUNS) {
        String runId = toRead.removeFirst();
        if (!read.add(runId)) {
          continue;
        }
        RunEvents events = readRun(workflowId, runId);
        runs.add(events.record());
        for (String linked : new String[] {events.previousRunId(), events.nextRunId()}) {
          if (linked != null && !read.contains(linked)) {
            toRead.addLast(linked);
          }
        }
      }
      return new HistoryEvidence(operationId, runs);
    } catch (StatusRuntimeException e) {
      throw new HistoryUnavailableException(operationId, e);
    }
  }

  private java.util.Optional<String> latestRun(String workflowId) {
    try {
      return java.util.Optional.of(
          stub()
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(namespace())
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                      .build())
              .getWorkflowExecutionInfo()
              .getExecution()
              .getRunId());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return java.util.Optional.empty();
      }
      throw e;
    }
  }

  private List<String> listedRuns(String workflowId) {
    try {
      return queried(workflowId);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED
          && e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
        throw e;
      }
      return filtered(workflowId);
    }
  }

  private List<String> queried(String workflowId) {
    List<String> runs = new ArrayList<>();
    ByteString page = ByteString.EMPTY;
    do {
      ListWorkflowExecutionsResponse response =
          stub()
              .listWorkflowExecutions(
                  ListWorkflowExecutionsRequest.newBuilder()
                      .setNamespace(namespace())
                      .setQuery("WorkflowId = '" + workflowId.replace("'", "\\'") + "'")
                      .setNextPageToken(page)
                      .build());
      response.getExecutionsList().forEach(info -> runs.add(info.getExecution().getRunId()));
      page = response.getNextPageToken();
    } while (!page.isEmpty() && runs.size() < MAX_RUNS);
    return runs;
  }

  /** The lists of open and closed executions, for a server that answers no list query. */
  private List<String> filtered(String workflowId) {
    WorkflowExecutionFilter filter =
        WorkflowExecutionFilter.newBuilder().setWorkflowId(workflowId).build();
    List<WorkflowExecutionInfo> infos = new ArrayList<>();
    infos.addAll(
        stub()
            .listOpenWorkflowExecutions(
                ListOpenWorkflowExecutionsRequest.newBuilder()
                    .setNamespace(namespace())
                    .setExecutionFilter(filter)
                    .build())
            .getExecutionsList());
    infos.addAll(
        stub()
            .listClosedWorkflowExecutions(
                ListClosedWorkflowExecutionsRequest.newBuilder()
                    .setNamespace(namespace())
                    .setExecutionFilter(filter)
                    .build())
            .getExecutionsList());
    return infos.stream().map(info -> info.getExecution().getRunId()).toList();
  }

  private RunEvents readRun(String workflowId, String runId) {
    RunEvents events = new RunEvents(converter(), runId);
    ByteString page = ByteString.EMPTY;
    do {
      GetWorkflowExecutionHistoryResponse response =
          stub()
              .getWorkflowExecutionHistory(
                  GetWorkflowExecutionHistoryRequest.newBuilder()
                      .setNamespace(namespace())
                      .setExecution(
                          WorkflowExecution.newBuilder().setWorkflowId(workflowId).setRunId(runId))
                      .setNextPageToken(page)
                      .build());
      for (HistoryEvent event : response.getHistory().getEventsList()) {
        events.add(event);
      }
      page = response.getNextPageToken();
    } while (!page.isEmpty());
    return events;
  }

  /** Each call bounded: a Temporal that does not answer is unavailable, not waited on forever. */
  private WorkflowServiceBlockingStub stub() {
    return client.getWorkflowServiceStubs().blockingStub().withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private String namespace() {
    return client.getOptions().getNamespace();
  }

  private DataConverter converter() {
    return client.getOptions().getDataConverter();
  }
}
