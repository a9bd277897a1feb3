package com.genace.ops.bench;

import com.genace.client.GenerationWorkflow;
import com.genace.client.TaskQueues;
import com.google.protobuf.Timestamp;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Where an operation's wait from its start to its POST went, from its history: its start call
 * (bench's clock to the server's {@code WorkflowExecutionStarted}), the first workflow task's wait
 * in {@value TaskQueues#OPERATIONS} (scheduled to started: the server hands it to a poller) and its
 * run on the worker (started to completed), the first dispatch's wait in {@value
 * TaskQueues#DISPATCH} (scheduled to started) and the dispatch activity's run up to the ledger's
 * {@code submitting} row (the server's clock to PostgreSQL's). Each part's median over the
 * operations, in ms.
 */
final class WaitBreakdown {

  /** One operation's wait, in parts; null where its history lacks the event. */
  record Parts(
      Double startCall,
      Double workflowTaskQueue,
      Double workflowTaskRun,
      Double betweenTasks,
      Double dispatchQueue,
      Double dispatchToPost) {}

  private WaitBreakdown() {}

  /** The medians of each part over {@code operations}: operation id, its start, its POST. */
  static Map<String, Object> of(
      WorkflowClient client, Map<String, Instant> starts, Map<String, Instant> posts) {
    List<Parts> all = new ArrayList<>();
    starts.forEach(
        (id, start) -> {
          Instant post = posts.get(id);
          if (post != null) {
            all.add(
                parts(
                    client.fetchHistory(GenerationWorkflow.workflowId(id)).getEvents(),
                    start,
                    post));
          }
        });
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("start_call", median(all, Parts::startCall));
    figures.put("workflow_task_queue", median(all, Parts::workflowTaskQueue));
    figures.put("workflow_task_run", median(all, Parts::workflowTaskRun));
    figures.put("workflow_task_to_dispatch_scheduled", median(all, Parts::betweenTasks));
    figures.put("dispatch_queue", median(all, Parts::dispatchQueue));
    figures.put("dispatch_to_post", median(all, Parts::dispatchToPost));
    figures.put("n", all.size());
    return figures;
  }

  static Parts parts(List<HistoryEvent> events, Instant start, Instant post) {
    Instant started = null;
    Instant taskScheduled = null;
    Instant taskStarted = null;
    Instant taskCompleted = null;
    Instant dispatchScheduled = null;
    Instant dispatchStarted = null;
    long dispatchId = -1;
    for (HistoryEvent event : events) {
      Instant at = instant(event.getEventTime());
      if (event.hasWorkflowExecutionStartedEventAttributes()) {
        started = at;
      } else if (event.hasWorkflowTaskScheduledEventAttributes() && taskScheduled == null) {
        taskScheduled = at;
      } else if (event.hasWorkflowTaskStartedEventAttributes() && taskStarted == null) {
        taskStarted = at;
      } else if (event.hasWorkflowTaskCompletedEventAttributes() && taskCompleted == null) {
        taskCompleted = at;
      } else if (event.hasActivityTaskScheduledEventAttributes()
          && dispatchId < 0
          && event
              .getActivityTaskScheduledEventAttributes()
              .getTaskQueue()
              .getName()
              .equals(TaskQueues.DISPATCH)) {
        dispatchScheduled = at;
        dispatchId = event.getEventId();
      } else if (event.hasActivityTaskStartedEventAttributes()
          && event.getActivityTaskStartedEventAttributes().getScheduledEventId() == dispatchId) {
        dispatchStarted = at;
      }
    }
    return new Parts(
        between(start, started),
        between(taskScheduled, taskStarted),
        between(taskStarted, taskCompleted),
        between(taskCompleted, dispatchScheduled),
        between(dispatchScheduled, dispatchStarted),
        between(dispatchStarted, post));
  }

  private static Double between(Instant from, Instant to) {
    return from == null || to == null ? null : Duration.between(from, to).toNanos() / 1e6;
  }

  private static Instant instant(Timestamp timestamp) {
    return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
  }

  private static Double median(List<Parts> all, Function<Parts, Double> part) {
    List<Double> values = new ArrayList<>();
    for (Parts parts : all) {
      Double value = part.apply(parts);
      if (value != null) {
        values.add(value);
      }
    }
    return Figures.percentile(values, 50);
  }
}
