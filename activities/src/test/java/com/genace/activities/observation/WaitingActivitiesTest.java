package com.genace.activities.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.ObservationWaiter;
import com.genace.client.GenerationWorkflow;
import com.genace.workflows.model.RemoteStatus;
import com.genace.workflows.observation.ObservationActivities;
import com.genace.workflows.observation.ObservationResult;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Telling the waiting activity on a real Temporal test server: an activity that never registered in
 * the ledger (as when Temporal handed its task to a worker that froze) and one the ledger names
 * wrongly (an earlier observation's) are both found through Temporal and completed.
 */
class WaitingActivitiesTest {

  private static final String QUEUE = "waiting-activities-test";
  private static final ObservationResult SUCCEEDED =
      ObservationResult.terminal(RemoteStatus.SUCCEEDED, "gen_1", null);

  private TestWorkflowEnvironment temporal;
  private WaitingActivities waiting;

  /** Only the observation's wait, scheduled as the generation workflow schedules it. */
  @WorkflowInterface
  public interface AwaitOnly {
    @WorkflowMethod
    ObservationResult run(String operationId);
  }

  public static final class AwaitOnlyImpl implements AwaitOnly {
    @Override
    public ObservationResult run(String operationId) {
      return Workflow.newActivityStub(
              ObservationActivities.class,
              ActivityOptions.newBuilder()
                  .setTaskQueue(QUEUE)
                  .setStartToCloseTimeout(Duration.ofHours(1))
                  .build())
          .awaitRemoteJob(operationId);
    }
  }

  /** An attempt that ran but registered nowhere: only Temporal knows it waits. */
  static final class NeverRegisters implements ObservationActivities {
    @Override
    public ObservationResult awaitRemoteJob(String operationId) {
      Activity.getExecutionContext().doNotCompleteOnReturn();
      return null;
    }
  }

  @BeforeEach
  void start() {
    temporal = TestWorkflowEnvironment.newInstance();
    Worker worker = temporal.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(AwaitOnlyImpl.class);
    worker.registerActivitiesImplementations(new NeverRegisters());
    temporal.start();
    waiting = new WaitingActivities(temporal.getWorkflowClient());
  }

  @AfterEach
  void stop() {
    temporal.close();
  }

  @Test
  void an_activity_the_ledger_does_not_name_is_found_through_temporal_and_completed()
      throws Exception {
    WorkflowStub workflow = startAwaiting("op-unregistered");

    assertThat(waiting.tell("op-unregistered", Optional.empty(), SUCCEEDED)).isTrue();

    assertThat(resultOf(workflow)).isEqualTo(SUCCEEDED);
  }

  @Test
  void an_activity_named_wrongly_in_the_ledger_is_found_through_temporal_and_completed()
      throws Exception {
    WorkflowStub workflow = startAwaiting("op-stale");
    ObservationWaiter earlier =
        new ObservationWaiter(GenerationWorkflow.workflowId("op-stale"), "run-before", "3");

    assertThat(waiting.tell("op-stale", Optional.of(earlier), SUCCEEDED)).isTrue();

    assertThat(resultOf(workflow)).isEqualTo(SUCCEEDED);
  }

  @Test
  void an_operation_without_a_workflow_has_nothing_to_tell() {
    assertThat(waiting.tell("op-none", Optional.empty(), SUCCEEDED)).isTrue();
  }

  private static ObservationResult resultOf(WorkflowStub workflow) throws Exception {
    return workflow.getResult(30, TimeUnit.SECONDS, ObservationResult.class);
  }

  /** Starts the wait and returns once Temporal shows its activity started (registered nowhere). */
  private WorkflowStub startAwaiting(String operationId) {
    WorkflowClient client = temporal.getWorkflowClient();
    String workflowId = GenerationWorkflow.workflowId(operationId);
    AwaitOnly workflow =
        client.newWorkflowStub(
            AwaitOnly.class,
            WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId(workflowId).build());
    WorkflowClient.start(workflow::run, operationId);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> waiting.startedAwait(operationId).isPresent());
    return WorkflowStub.fromTyped(workflow);
  }
}
