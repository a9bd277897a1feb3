package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.model.FailureTypes;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The start input as a client in another language sends it: raw JSON, no {@link GenerationRequest}
 * on the sending side. No activity worker runs, so the history shows exactly what the workflow
 * scheduled.
 */
class StartInputTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

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
    env.newWorker(TaskQueues.OPERATIONS)
        .registerWorkflowImplementationTypes(GenerationWorkflowImpl.class);
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
    assertThat(scheduledActivities("bad-1")).as("nothing registered or dispatched").isEmpty();
  }

  @Test
  void a_missing_model_fails_the_workflow_naming_the_model() throws IOException {
    WorkflowStub workflow = startRaw("bad-2", "{\"operationId\":\"bad-2\",\"input\":{}}");

    WorkflowFailedException failed =
        catchThrowableOfType(
            WorkflowFailedException.class, () -> workflow.getResult(OperationResult.class));

    assertThat(((ApplicationFailure) failed.getCause()).getOriginalMessage())
        .isEqualTo("invalid start input: model must not be blank");
    assertThat(scheduledActivities("bad-2")).isEmpty();
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
          .until(() -> !scheduledActivities(id).isEmpty());
      HistoryEvent scheduled = scheduledActivities(id).get(0);
      JsonNode registered =
          JSON.readTree(
              scheduled
                  .getActivityTaskScheduledEventAttributes()
                  .getInput()
                  .getPayloads(0)
                  .getData()
                  .toStringUtf8());
      assertThat(scheduled.getActivityTaskScheduledEventAttributes().getActivityType().getName())
          .isEqualTo("Register");
      assertThat(registered.get("input")).as(id).isEqualTo(JSON.readTree("{\"p\":1}"));
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

  private List<HistoryEvent> scheduledActivities(String operationId) {
    return client.fetchHistory(GenerationWorkflow.workflowId(operationId)).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .toList();
  }
}
