package com.genace.worker.temporal;

import com.genace.client.connection.GenerationConnection;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.taskqueue.v1.TaskQueueStats;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Work that no worker has picked up yet, as Temporal sees it: the backlog of each task queue (tasks
 * waiting for a poller, and the oldest one's age) and the generation workflows running. Read with
 * {@code DescribeTaskQueue} with stats (servers from 1.25; the Java test server answers
 * UNIMPLEMENTED, and so do servers whose visibility cannot count) and {@code
 * CountWorkflowExecutions}; what a server cannot answer is reported as unavailable, with why.
 */
public final class Saturation {

  /** One queue's backlog for one kind of task. */
  public record Backlog(String taskQueue, String type, long tasks, double oldestAgeSeconds) {}

  /**
   * A reading: each part present when the server answered it, else the reason it did not.
   *
   * @param runningWorkflows generation workflows running, fleet-wide
   */
  public record Reading(
      Optional<List<Backlog>> backlog,
      Optional<String> backlogUnavailable,
      Optional<Long> runningWorkflows,
      Optional<String> runningUnavailable) {}

  /** The workflow type whose running executions are counted. */
  static final String WORKFLOW_TYPE = "GenerationWorkflow";

  private static final long DEADLINE_SECONDS = 5;

  private final WorkflowServiceStubs stubs;
  private final String namespace;
  private final List<String> workflowQueues;
  private final List<String> activityQueues;

  /**
   * @param workflowQueues queues that carry workflow tasks
   * @param activityQueues queues that carry activity tasks
   */
  public Saturation(
      WorkflowServiceStubs stubs,
      String namespace,
      List<String> workflowQueues,
      List<String> activityQueues) {
    this.stubs = stubs;
    this.namespace = namespace;
    this.workflowQueues = List.copyOf(workflowQueues);
    this.activityQueues = List.copyOf(activityQueues);
  }

  public Reading read() {
    Optional<List<Backlog>> backlog = Optional.empty();
    Optional<String> backlogUnavailable = Optional.empty();
    try {
      List<Backlog> all = new ArrayList<>();
      for (String queue : workflowQueues) {
        all.add(describe(queue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, "workflow"));
      }
      for (String queue : activityQueues) {
        all.add(describe(queue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, "activity"));
      }
      backlog = Optional.of(all);
    } catch (StatusRuntimeException e) {
      backlogUnavailable = Optional.of(GenerationConnection.describe(e));
    }
    Optional<Long> running = Optional.empty();
    Optional<String> runningUnavailable = Optional.empty();
    try {
      running =
          Optional.of(
              stubs
                  .blockingStub()
                  .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
                  .countWorkflowExecutions(
                      CountWorkflowExecutionsRequest.newBuilder()
                          .setNamespace(namespace)
                          .setQuery(
                              "WorkflowType = '"
                                  + WORKFLOW_TYPE
                                  + "' AND ExecutionStatus = 'Running'")
                          .build())
                  .getCount());
    } catch (StatusRuntimeException e) {
      runningUnavailable = Optional.of(GenerationConnection.describe(e));
    }
    return new Reading(backlog, backlogUnavailable, running, runningUnavailable);
  }

  private Backlog describe(String queue, TaskQueueType type, String typeName) {
    TaskQueueStats stats =
        stubs
            .blockingStub()
            .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
            .describeTaskQueue(
                DescribeTaskQueueRequest.newBuilder()
                    .setNamespace(namespace)
                    .setTaskQueue(TaskQueue.newBuilder().setName(queue).build())
                    .setTaskQueueType(type)
                    .setReportStats(true)
                    .build())
            .getStats();
    var age = stats.getApproximateBacklogAge();
    return new Backlog(
        queue,
        typeName,
        stats.getApproximateBacklogCount(),
        age.getSeconds() + age.getNanos() / 1e9);
  }
}
