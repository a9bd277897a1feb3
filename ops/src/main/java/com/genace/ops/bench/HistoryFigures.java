package com.genace.ops.bench;

import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a sample of one kind's finished workflows cost Temporal, from their histories (fetched
 * through the client after the run): events and billable actions ({@link BillableActions}) per
 * workflow, and both by event type.
 *
 * @param actionsByType per workflow, in the keys of {@link BillableActions#byEventType}
 * @param eventsByType per workflow, by event type (without {@code EVENT_TYPE_})
 */
record HistoryFigures(
    Double eventsPerWorkflow,
    Double actionsPerWorkflow,
    Map<String, Double> actionsByType,
    Map<String, Double> eventsByType) {

  /** Histories fetched of each kind: enough for a mean, few enough to fetch in seconds. */
  static final int SAMPLE = 20;

  static HistoryFigures of(WorkflowClient client, List<String> workflowIds) {
    List<WorkflowExecutionHistory> histories = new ArrayList<>();
    for (String workflowId : spread(workflowIds, SAMPLE)) {
      histories.add(client.fetchHistory(workflowId));
    }
    return of(histories);
  }

  static HistoryFigures of(List<WorkflowExecutionHistory> histories) {
    long events = 0;
    long actions = 0;
    Map<String, Integer> actionTypes = new TreeMap<>();
    Map<String, Integer> eventTypes = new TreeMap<>();
    for (WorkflowExecutionHistory history : histories) {
      events += history.getEvents().size();
      for (HistoryEvent event : history.getEvents()) {
        eventTypes.merge(event.getEventType().name().replace("EVENT_TYPE_", ""), 1, Integer::sum);
      }
      Map<String, Integer> own = BillableActions.byEventType(history);
      own.forEach((type, count) -> actionTypes.merge(type, count, Integer::sum));
      actions += own.values().stream().mapToInt(Integer::intValue).sum();
    }
    return new HistoryFigures(
        Figures.perOperation(events, histories.size()),
        Figures.perOperation(actions, histories.size()),
        perWorkflow(actionTypes, histories.size()),
        perWorkflow(eventTypes, histories.size()));
  }

  private static Map<String, Double> perWorkflow(Map<String, Integer> totals, int workflows) {
    Map<String, Double> perWorkflow = new LinkedHashMap<>();
    totals.forEach((type, count) -> perWorkflow.put(type, Figures.perOperation(count, workflows)));
    return perWorkflow;
  }

  /** At most {@code size} of {@code ids}, evenly spread from the first. */
  static List<String> spread(List<String> ids, int size) {
    List<String> picked = new ArrayList<>();
    int step = Math.max(1, ids.size() / size);
    for (int i = 0; i < ids.size() && picked.size() < size; i += step) {
      picked.add(ids.get(i));
    }
    return picked;
  }
}
