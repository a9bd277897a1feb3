package com.genace.ops.bench;

import static com.genace.ops.support.SavedHistories.saved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.temporal.api.common.v1.MeteringMetadata;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.SearchAttributes;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.api.history.v1.UpsertWorkflowSearchAttributesEventAttributes;
import io.temporal.api.history.v1.WorkflowExecutionStartedEventAttributes;
import io.temporal.api.history.v1.WorkflowTaskCompletedEventAttributes;
import io.temporal.api.history.v1.WorkflowTaskFailedEventAttributes;
import io.temporal.common.WorkflowExecutionHistory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The counts over the workflows module's saved histories (read from there, never copied), each
 * checked by hand against the events of its file; the rules no saved history exercises over
 * histories built here.
 */
class BillableActionsTest {

  @Test
  void a_delivered_operation_costs_its_start_three_activities_and_two_upserts() throws Exception {
    WorkflowExecutionHistory delivered = saved("delivered.json");

    // The phases an operator looks for: observing (with the remote job id), then delivered. The
    // naive workflow's 4 (its start and three activities) plus 2.
    assertThat(BillableActions.byEventType(delivered))
        .containsOnly(
            entry("WORKFLOW_EXECUTION_STARTED", 1),
            entry("UPSERT_WORKFLOW_SEARCH_ATTRIBUTES", 2),
            entry("ACTIVITY_TASK_SCHEDULED RegisterAndDispatch", 1),
            entry("ACTIVITY_TASK_SCHEDULED AwaitRemoteJob", 1),
            entry("ACTIVITY_TASK_SCHEDULED Deliver", 1));
    assertThat(BillableActions.count(delivered)).isEqualTo(6);
    assertThat(delivered.getEvents()).hasSize(25);
  }

  @Test
  void a_review_resolved_by_update_costs_its_timer_and_the_accepted_update() throws Exception {
    WorkflowExecutionHistory found = saved("review-found-remote-job.json");

    assertThat(BillableActions.byEventType(found))
        .contains(
            entry("TIMER_STARTED", 1),
            entry("WORKFLOW_EXECUTION_UPDATE_ACCEPTED", 1),
            entry("UPSERT_WORKFLOW_SEARCH_ATTRIBUTES", 3),
            entry("ACTIVITY_TASK_SCHEDULED CheckFoundJob", 1));
    assertThat(BillableActions.count(found)).isEqualTo(13);
  }

  @Test
  void a_review_resolved_by_signal_costs_the_signal() throws Exception {
    assertThat(BillableActions.byEventType(saved("review-not-submitted.json")))
        .contains(
            entry("WORKFLOW_EXECUTION_SIGNALED", 1), entry("ACTIVITY_TASK_SCHEDULED Dispatch", 1));
    assertThat(BillableActions.count(saved("review-not-submitted.json"))).isEqualTo(15);
    assertThat(BillableActions.count(saved("review-abandon.json"))).isEqualTo(9);
    assertThat(BillableActions.count(saved("cancel-observing.json"))).isEqualTo(7);
  }

  @Test
  void every_retry_of_an_activity_is_an_action_of_its_own() throws Exception {
    // The review opened on the second attempt: the first found the operation still leased by the
    // dispatch attempt that had timed out, and failed to be retried.
    WorkflowExecutionHistory retried = saved("dispatch-timeout-review.json");

    assertThat(BillableActions.byEventType(retried))
        .contains(
            entry("ACTIVITY_TASK_SCHEDULED OpenReview", 1),
            entry("ACTIVITY_TASK_STARTED OpenReview", 1));
    assertThat(BillableActions.count(retried)).isEqualTo(10);
  }

  @Test
  void the_markers_of_one_workflow_task_are_one_action_and_version_markers_none() {
    WorkflowExecutionHistory history =
        history(
            marker(4, "LocalActivity"),
            marker(4, "LocalActivity"),
            marker(4, "Version"),
            marker(9, "SideEffect"),
            marker(12, "core_patch"));

    assertThat(BillableActions.byEventType(history))
        .containsOnly(entry("WORKFLOW_EXECUTION_STARTED", 1), entry("MARKER_RECORDED", 2));
  }

  @Test
  void an_upsert_of_the_change_version_alone_is_free() {
    WorkflowExecutionHistory history =
        history(upsert("TemporalChangeVersion"), upsert("TemporalChangeVersion", "GenacePhase"));

    assertThat(BillableActions.byEventType(history))
        .containsEntry("UPSERT_WORKFLOW_SEARCH_ATTRIBUTES", 1);
  }

  @Test
  void the_signal_of_a_signal_with_start_is_charged_as_the_start_alone() {
    HistoryEvent signal =
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
            .build();
    WorkflowExecutionHistory history = history(signal, signal);

    // The first signal is event 2, right after the start; the second came later.
    assertThat(BillableActions.byEventType(history))
        .containsOnly(
            entry("WORKFLOW_EXECUTION_STARTED", 1), entry("WORKFLOW_EXECUTION_SIGNALED", 1));
  }

  @Test
  void local_activity_retries_children_and_resets_are_charged_as_published() {
    HistoryEvent retriedLocally =
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
            .setWorkflowTaskCompletedEventAttributes(
                WorkflowTaskCompletedEventAttributes.newBuilder()
                    .setMeteringMetadata(
                        MeteringMetadata.newBuilder().setNonfirstLocalActivityExecutionAttempts(3)))
            .build();
    HistoryEvent reset =
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
            .setWorkflowTaskFailedEventAttributes(
                WorkflowTaskFailedEventAttributes.newBuilder()
                    .setCause(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW))
            .build();
    HistoryEvent failedTask =
        HistoryEvent.newBuilder().setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED).build();
    HistoryEvent child =
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)
            .build();

    assertThat(BillableActions.byEventType(history(retriedLocally, reset, failedTask, child)))
        .containsOnly(
            entry("WORKFLOW_EXECUTION_STARTED", 1),
            entry("WORKFLOW_TASK_COMPLETED", 3),
            entry("WORKFLOW_TASK_FAILED", 1),
            entry("START_CHILD_WORKFLOW_EXECUTION_INITIATED", 2));
  }

  /** A started event, then {@code events} numbered from 2. */
  private static WorkflowExecutionHistory history(HistoryEvent... events) {
    List<HistoryEvent> all = new ArrayList<>();
    all.add(
        HistoryEvent.newBuilder()
            .setEventId(1)
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)
            .setWorkflowExecutionStartedEventAttributes(
                WorkflowExecutionStartedEventAttributes.getDefaultInstance())
            .build());
    for (HistoryEvent event : events) {
      all.add(event.toBuilder().setEventId(all.size() + 1).build());
    }
    return new WorkflowExecutionHistory(History.newBuilder().addAllEvents(all).build());
  }

  private static HistoryEvent marker(long workflowTask, String name) {
    return HistoryEvent.newBuilder()
        .setEventType(EventType.EVENT_TYPE_MARKER_RECORDED)
        .setMarkerRecordedEventAttributes(
            MarkerRecordedEventAttributes.newBuilder()
                .setMarkerName(name)
                .setWorkflowTaskCompletedEventId(workflowTask))
        .build();
  }

  private static HistoryEvent upsert(String... fields) {
    SearchAttributes.Builder attributes = SearchAttributes.newBuilder();
    for (String field : fields) {
      attributes.putIndexedFields(field, Payload.getDefaultInstance());
    }
    return HistoryEvent.newBuilder()
        .setEventType(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)
        .setUpsertWorkflowSearchAttributesEventAttributes(
            UpsertWorkflowSearchAttributesEventAttributes.newBuilder()
                .setSearchAttributes(attributes))
        .build();
  }
}
