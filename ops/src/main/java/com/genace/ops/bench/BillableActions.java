package com.genace.ops.bench;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Temporal Cloud's billable actions in one workflow run's history, by Temporal's published
 * definition (https://docs.temporal.io/evaluate/cloud/actions) and the per-event rules of the
 * estimate the Web UI shows next to each event on Cloud ({@code get-event-billable-actions.ts} of
 * temporalio/ui):
 *
 * <ul>
 *   <li>1 per workflow started (a client start, continue-as-new or a schedule's start each begin a
 *       run with this event), activity scheduled, timer started, update accepted or rejected,
 *       workflow options updated, Nexus operation scheduled or cancelled;
 *   <li>1 per signal received, but for the one of a signal-with-start (event 2, charged as the
 *       start);
 *   <li>1 per retry of an activity: its started event's {@code attempt} less one;
 *   <li>1 per search-attribute upsert, but for one that sets only {@code TemporalChangeVersion};
 *   <li>1 per workflow task that recorded markers (local activities, side effects), however many,
 *       but none for version markers ({@code Version}, {@code core_patch});
 *   <li>each local-activity retry a workflow task reports in its metering metadata (at most 100);
 *   <li>2 per child workflow initiated; 1 per reset.
 * </ul>
 *
 * What a history does not show is not counted: queries, activity heartbeats that reached the
 * server, and a signal sent to another workflow (counted where it is received).
 */
final class BillableActions {

  /** Version markers record which code a run took, and cost no action. */
  private static final Set<String> FREE_MARKERS = Set.of("Version", "core_patch");

  private static final String CHANGE_VERSION = "TemporalChangeVersion";
  private static final String PREFIX = "EVENT_TYPE_";
  private static final int MAX_LOCAL_ACTIVITY_RETRIES = 100;

  private BillableActions() {}

  static int count(WorkflowExecutionHistory history) {
    return byEventType(history).values().stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * The actions by the event type that shows them (without {@code EVENT_TYPE_}), activity ones
   * followed by the activity type, e.g. {@code ACTIVITY_TASK_SCHEDULED Deliver} and {@code
   * ACTIVITY_TASK_STARTED AwaitRemoteJob} (its retries); types that cost nothing are left out.
   */
  static Map<String, Integer> byEventType(WorkflowExecutionHistory history) {
    Map<String, Integer> actions = new TreeMap<>();
    Map<Long, String> activityTypes = new HashMap<>();
    Set<Long> tasksWithMarkers = new HashSet<>();
    for (HistoryEvent event : history.getEvents()) {
      if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        activityTypes.put(
            event.getEventId(),
            event.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      }
      int cost = actionsOf(event, tasksWithMarkers);
      if (cost > 0) {
        actions.merge(label(event, activityTypes), cost, Integer::sum);
      }
    }
    return actions;
  }

  private static int actionsOf(HistoryEvent event, Set<Long> tasksWithMarkers) {
    return switch (event.getEventType()) {
      case EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
          EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
          EVENT_TYPE_TIMER_STARTED,
          EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
          EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_REJECTED,
          EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED,
          EVENT_TYPE_NEXUS_OPERATION_SCHEDULED,
          EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED ->
          1;
      case EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED -> 2;
      case EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED -> event.getEventId() == 2 ? 0 : 1;
      case EVENT_TYPE_ACTIVITY_TASK_STARTED ->
          Math.max(0, event.getActivityTaskStartedEventAttributes().getAttempt() - 1);
      case EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES -> {
        Set<String> fields =
            event
                .getUpsertWorkflowSearchAttributesEventAttributes()
                .getSearchAttributes()
                .getIndexedFieldsMap()
                .keySet();
        yield fields.equals(Set.of(CHANGE_VERSION)) ? 0 : 1;
      }
      case EVENT_TYPE_MARKER_RECORDED -> {
        var marker = event.getMarkerRecordedEventAttributes();
        boolean billed =
            !FREE_MARKERS.contains(marker.getMarkerName())
                && tasksWithMarkers.add(marker.getWorkflowTaskCompletedEventId());
        yield billed ? 1 : 0;
      }
      case EVENT_TYPE_WORKFLOW_TASK_COMPLETED ->
          Math.min(
              MAX_LOCAL_ACTIVITY_RETRIES,
              event
                  .getWorkflowTaskCompletedEventAttributes()
                  .getMeteringMetadata()
                  .getNonfirstLocalActivityExecutionAttempts());
      case EVENT_TYPE_WORKFLOW_TASK_FAILED ->
          event.getWorkflowTaskFailedEventAttributes().getCause()
                  == WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW
              ? 1
              : 0;
      default -> 0;
    };
  }

  private static String label(HistoryEvent event, Map<Long, String> activityTypes) {
    String type = event.getEventType().name().substring(PREFIX.length());
    return switch (event.getEventType()) {
      case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> type + " " + activityTypes.get(event.getEventId());
      case EVENT_TYPE_ACTIVITY_TASK_STARTED ->
          type
              + " "
              + activityTypes.get(
                  event.getActivityTaskStartedEventAttributes().getScheduledEventId());
      default -> type;
    };
  }
}
