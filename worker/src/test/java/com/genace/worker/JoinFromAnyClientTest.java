package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationConflictException;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.worker.support.GenerationHarness;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same operation id with another request is refused by the workflow itself, for a client in any
 * language: a start by Update-with-Start with {@code USE_EXISTING} (as docs/clients.md tells a
 * Python or Go service to start) joins only with the operation's own request. Sent here untyped, as
 * a client without the Java interface would send it.
 */
@ExtendWith(DatabaseExtension.class)
class JoinFromAnyClientTest {

  private static final String OP = "op-any-client";

  @TempDir Path artifacts;
  private GenerationHarness harness;

  @BeforeEach
  void start() {
    harness = new GenerationHarness(artifacts);
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  /** {@code join} with start, as docs/clients.md shows it. */
  private String startAndJoin(GenerationRequest request) {
    WorkflowStub stub =
        harness
            .temporal
            .getWorkflowClient()
            .newUntypedWorkflowStub(
                "GenerationWorkflow",
                WorkflowOptions.newBuilder()
                    .setWorkflowId(GenerationWorkflow.workflowId(request.operationId()))
                    .setTaskQueue(TaskQueues.OPERATIONS)
                    .setWorkflowIdReusePolicy(
                        WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                    .setWorkflowIdConflictPolicy(
                        WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                    .build());
    return stub.executeUpdateWithStart(
        UpdateOptions.newBuilder(String.class)
            .setUpdateName("join")
            .setWaitForStage(WorkflowUpdateStage.COMPLETED)
            .build(),
        new Object[] {request},
        new Object[] {request});
  }

  @Test
  void another_request_under_a_running_id_is_refused_and_the_same_one_joins() throws Exception {
    GenerationRequest first =
        new GenerationRequest(OP, "image-v1", "{\"prompt\":\"A\",\"n\":1}", null, "acme");
    assertThat(startAndJoin(first)).isEqualTo("joined");

    GenerationRequest other =
        new GenerationRequest(OP, "video-v1", "{\"prompt\":\"B\"}", null, "acme");
    assertThatThrownBy(() -> startAndJoin(other))
        .isInstanceOf(WorkflowUpdateException.class)
        .cause()
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            refusal -> {
              assertThat(refusal.getOriginalMessage())
                  .isEqualTo(
                      "operation op-any-client was started with another request (model image-v1"
                          + " was started, not video-v1; the input differs); use a new operation"
                          + " id for a new request");
            });
    // The same request, its input written another way: joined.
    GenerationRequest same =
        new GenerationRequest(OP, "image-v1", "{ \"n\": 1, \"prompt\": \"A\" }", 30, "acme");
    assertThat(startAndJoin(same)).isEqualTo("joined");
    // The Java client meets the same refusal, with what differs.
    assertThatThrownBy(() -> harness.client.start(other))
        .isInstanceOfSatisfying(
            OperationConflictException.class,
            conflict ->
                assertThat(conflict.differences())
                    .containsExactly(
                        "model image-v1 was started, not video-v1", "the input differs"));
    assertThat(harness.client.start(same).alreadyExisted()).isTrue();

    assertThat(harness.client.awaitResult(OP, Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.DELIVERED);
    assertThat(harness.postsFor(OP)).isEqualTo(1);
    assertThat(harness.row(OP).model()).isEqualTo("image-v1");
    harness.replayAndRecord(OP, "joined-by-update-with-start");
  }
}
