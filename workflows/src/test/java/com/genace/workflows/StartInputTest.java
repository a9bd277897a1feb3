package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationSearchAttributes;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.TaskQueues;
import com.genace.workflows.model.FailureTypes;
import com.genace.workflows.registration.RegistrationActivities;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
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
 * on the sending side. The registration activity is a recording double, which keeps the request a
 * registration was given; no dispatch worker runs, so the history shows exactly what the workflow
 * scheduled or recorded (the first dispatch, which also registers, carries the request).
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
    env.registerSearchAttribute(
        GenerationSearchAttributes.CREDITS.getName(), IndexedValueType.INDEXED_VALUE_TYPE_INT);
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
  void an_input_over_the_ceiling_fails_the_run_under_its_version_marker_and_replays()
      throws Exception {
    String prompt = "x".repeat(GenerationRequest.MAX_INPUT_BYTES_CEILING);
    WorkflowStub workflow =
        startRaw(
            "big-1",
            "{\"operationId\":\"big-1\",\"model\":\"image-v1\",\"input\":{\"prompt\":\""
                + prompt
                + "\"}}");

    WorkflowFailedException failed =
        catchThrowableOfType(
            WorkflowFailedException.class, () -> workflow.getResult(OperationResult.class));

    ApplicationFailure cause = (ApplicationFailure) failed.getCause();
    assertThat(cause.getType()).isEqualTo(FailureTypes.INVALID_REQUEST);
    assertThat(cause.getOriginalMessage())
        .startsWith("invalid start input: input is 1048589 bytes; at most 1048576");
    assertNothingRegisteredOrDispatched("big-1");
    assertThat(
            events("big-1", EventType.EVENT_TYPE_MARKER_RECORDED).stream()
                .map(e -> e.getMarkerRecordedEventAttributes().getDetailsMap().toString()))
        .singleElement()
        .asString()
        .contains(VersionMarkers.INPUT_BOUNDS);
    WorkflowReplayer.replayWorkflowExecution(
        client.fetchHistory(GenerationWorkflow.workflowId("big-1")), GenerationWorkflowImpl.class);
  }

  @Test
  void an_operation_id_too_long_for_an_object_key_fails_the_run_before_registering() {
    String id = "\u20ac".repeat(150); // 150 characters, 1,350 bytes once percent-encoded
    WorkflowStub workflow;
    try {
      workflow =
          startRaw(id, "{\"operationId\":\"" + id + "\",\"model\":\"image-v1\",\"input\":{}}");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }

    WorkflowFailedException failed =
        catchThrowableOfType(
            WorkflowFailedException.class, () -> workflow.getResult(OperationResult.class));

    assertThat(((ApplicationFailure) failed.getCause()).getOriginalMessage())
        .isEqualTo(
            "invalid start input: operation id is 1350 bytes as an object key segment"
                + " (percent-encoded); at most 400, so that an artifact's key fits S3's 1,024"
                + " bytes");
    assertNothingRegisteredOrDispatched(id);
  }

  @Test
  void the_input_as_a_string_in_inputjson_is_no_input() throws IOException {
    WorkflowStub workflow =
        startRaw(
            "bad-3",
            "{\"operationId\":\"bad-3\",\"model\":\"image-v1\",\"inputJson\":\"{\\\"p\\\":1}\"}");

    WorkflowFailedException failed =
        catchThrowableOfType(
            WorkflowFailedException.class, () -> workflow.getResult(OperationResult.class));

    assertThat(((ApplicationFailure) failed.getCause()).getOriginalMessage())
        .isEqualTo("invalid start input: input is missing: it must be a JSON object");
    assertNothingRegisteredOrDispatched("bad-3");
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
  void a_valid_input_starts_the_operation_with_the_input_object() throws IOException {
    startRaw("new-1", "{\"operationId\":\"new-1\",\"model\":\"image-v1\",\"input\":{\"p\":1}}");

    for (String id : List.of("new-1")) {
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> !scheduledActivities(id).isEmpty());
      ActivityTaskScheduledEventAttributes first =
          scheduledActivities(id).get(0).getActivityTaskScheduledEventAttributes();
      assertThat(first.getActivityType().getName())
          .as("the first activity scheduled registers and dispatches")
          .isEqualTo("RegisterAndDispatch");
      JsonNode registered = JSON.readTree(first.getInput().getPayloads(0).getData().toStringUtf8());
      assertThat(registered.path("operationId").asText()).isEqualTo(id);
      assertThat(registered.path("input")).as(id).isEqualTo(JSON.readTree("{\"p\":1}"));
    }
  }

  @Test
  void a_first_dispatch_no_worker_takes_registers_the_operation_and_dispatches_as_usual()
      throws IOException {
    startRaw("queued-1", "{\"operationId\":\"queued-1\",\"model\":\"image-v1\",\"input\":{}}");

    // No dispatch worker polls (as while dispatch is paused): the first attempt is never started.
    env.sleep(ActivityStubs.FIRST_DISPATCH_WAIT.plusSeconds(5));

    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> scheduledActivities("queued-1").size() == 3);
    assertThat(scheduledActivities("queued-1"))
        .extracting(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName())
        .containsExactly("RegisterAndDispatch", "Register", "Dispatch");
    assertThat(events("queued-1", EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT))
        .singleElement()
        .satisfies(
            e ->
                assertThat(
                        e.getActivityTaskTimedOutEventAttributes()
                            .getFailure()
                            .getTimeoutFailureInfo()
                            .getTimeoutType())
                    .isEqualTo(TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START));
    assertThat(registration.requests).containsKey("queued-1");
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

  /** Keeps each registered request. */
  private static final class RecordingRegistration implements RegistrationActivities {
    final Map<String, GenerationRequest> requests = new ConcurrentHashMap<>();

    @Override
    public void register(GenerationRequest request) {
      requests.put(request.operationId(), request);
    }
  }
}
