package com.genace.ops.bench;

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
 * workflow, and the actions by event type.
 *
 * @param actionsByType per workflow, in the keys of {@link BillableActions#byEventType}
 */
record HistoryFigures(
    Double eventsPerWorkflow, Double actionsPerWorkflow, Map<String, Double> actionsByType) {

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
    Map<String, Integer> byType = new TreeMap<>();
    for (WorkflowExecutionHistory history : histories) {
      events += history.getEvents().size();
      Map<String, Integer> own = BillableActions.byEventType(history);
      own.forEach((type, count) -> byType.merge(type, count, Integer::sum));
      actions += own.values().stream().mapToInt(Integer::intValue).sum();
    }
    Map<String, Double> perWorkflow = new LinkedHashMap<>();
    byType.forEach(
        (type, count) -> perWorkflow.put(type, Figures.perOperation(count, histories.size())));
    return new HistoryFigures(
        Figures.perOperation(events, histories.size()),
        Figures.perOperation(actions, histories.size()),
        perWorkflow);
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
