package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.model.FailureTypes;
import com.genace.model.ReviewReason;
import com.genace.review.ReviewActivities;
import com.genace.review.ReviewOpened;
import com.genace.review.ReviewResolution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The start input as a client in another language sends it: raw JSON, no {@link GenerationRequest}
 * on the sending side. Registration runs as a local activity on the workflow's worker: here a
 * recording one, which keeps the request it was given. No other activity worker runs, so the
 * history shows exactly what the workflow scheduled or recorded.
 */
class StartInputTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private TestWorkflowEnvironment env;
  private WorkflowClient client;
  private final RecordingRegistration registration = new RecordingRegistration();

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.registerSearchAttribute(
        GenerationSearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    env.registerSearchAttribute(
        GenerationSearchAttributes.REMOTE_JOB_ID.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    env.registerSearchAttribute(
        GenerationSearchAttributes.NEEDS_REVIEW.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_BOOL);
    Worker worker = env.newWorker(TaskQueues.OPERATIONS);
    worker.registerWorkflowImplementationTypes(GenerationWorkflowImpl.class);
    worker.registerActivitiesImplementations(registration);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void an_input_that_is_a_string_fails_the_workflow_at_once_naming_the_field() throws IOException {
    WorkflowStub workflow =
        startRaw("bad-1", "{\"operationId\":\"bad-1\",\"model\":\"image-v1\",\"input\":\"{}\"}");

    WorkflowFailedException failed =
        catchThrowableOfType(
            WorkflowFailedException.class, () -> workflow.getResult(OperationResult.class));

    ApplicationFailure cause = (ApplicationFailure) failed.getCause();
    assertThat(cause.getType()).isEqualTo(FailureTypes.INVALID_REQUEST);
    assertThat(cause.isNonRetryable()).isTrue();
    assertThat(cause.getOriginalMessage())
        .isEqualTo("invalid start input: input must be a JSON object");
    assertNothingRegisteredOrDispatched("bad-1");
  }

  @Test
  void a_missing_model_fails_the_workflow_naming_the_model() throws IOException {
    WorkflowStub workflow = startRaw("bad-2", "{\"operationId\":\"bad-2\",\"input\":{}}");

    WorkflowFailedException failed =
        catchThrowableOfType(
            WorkflowFailedException.class, () -> workflow.getResult(OperationResult.class));

    assertThat(((ApplicationFailure) failed.getCause()).getOriginalMessage())
        .isEqualTo("invalid start input: model must not be blank");
    assertNothingRegisteredOrDispatched("bad-2");
  }

  @Test
  void both_shapes_of_a_valid_input_start_the_operation_with_the_input_object() throws IOException {
    startRaw("new-1", "{\"operationId\":\"new-1\",\"model\":\"image-v1\",\"input\":{\"p\":1}}");
    startRaw(
        "old-1",
        "{\"operationId\":\"old-1\",\"model\":\"image-v1\",\"inputJson\":\"{\\\"p\\\":1}\"}");

    for (String id : List.of("new-1", "old-1")) {
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> registration.requests.containsKey(id) && !scheduledActivities(id).isEmpty());
      assertThat(JSON.readTree(registration.requests.get(id).inputJson()))
          .as(id)
          .isEqualTo(JSON.readTree("{\"p\":1}"));
      assertThat(
              scheduledActivities(id)
                  .get(0)
                  .getActivityTaskScheduledEventAttributes()
                  .getActivityType()
                  .getName())
          .as("the first activity scheduled is the registration")
          .isEqualTo("Register");
    }
  }

  private WorkflowStub startRaw(String operationId, String json) throws IOException {
    WorkflowStub stub =
        client.newUntypedWorkflowStub(
            "GenerationWorkflow",
            WorkflowOptions.newBuilder()
                .setWorkflowId(GenerationWorkflow.workflowId(operationId))
                .setTaskQueue(TaskQueues.OPERATIONS)
                .build());
    stub.start(JSON.readTree(json));
    return stub;
  }

  private void assertNothingRegisteredOrDispatched(String operationId) {
    assertThat(registration.requests).as("nothing registered").doesNotContainKey(operationId);
    assertThat(markers(operationId)).as("no local activity ran").isEmpty();
    assertThat(scheduledActivities(operationId)).as("nothing dispatched").isEmpty();
  }

  private List<HistoryEvent> markers(String operationId) {
    return events(operationId, EventType.EVENT_TYPE_MARKER_RECORDED).stream()
        .filter(e -> e.getMarkerRecordedEventAttributes().getMarkerName().equals("LocalActivity"))
        .toList();
  }

  private List<HistoryEvent> scheduledActivities(String operationId) {
    return events(operationId, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  }

  private List<HistoryEvent> events(String operationId, EventType type) {
    return client.fetchHistory(GenerationWorkflow.workflowId(operationId)).getEvents().stream()
        .filter(e -> e.getEventType() == type)
        .toList();
  }

  /** Keeps each registered request; the workflow's other ledger steps are not reached here. */
  private static final class RecordingRegistration implements ReviewActivities {
    final Map<String, GenerationRequest> requests = new ConcurrentHashMap<>();

    @Override
    public void register(GenerationRequest request) {
      requests.put(request.operationId(), request);
    }

    @Override
    public ReviewOpened openReview(String operationId, ReviewReason reason, String detail) {
      throw new UnsupportedOperationException("not reached by these tests");
    }

    @Override
    public void recordResolution(String operationId, ReviewResolution resolution) {
      throw new UnsupportedOperationException("not reached by these tests");
    }
  }
}
