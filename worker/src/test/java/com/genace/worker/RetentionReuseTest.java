package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationResult;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.worker.support.GenerationHarness;
import com.genace.workflows.lifecycle.RetentionReport;
import com.genace.workflows.lifecycle.RetentionRequest;
import com.genace.workflows.lifecycle.RetentionWorkflow;
import com.genace.workflows.lifecycle.RetentionWorkflowImpl;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operation id after the retention: once its row is gone (and Temporal, whose retention the
 * ledger's never undercuts, no longer holds its workflow), starting the id again is a new
 * operation, dispatched once; while its row stands with another request, the start is refused and
 * nothing is sent. The retention pass runs as its schedule runs it: the {@link RetentionWorkflow}
 * on the operations queue, on the test server, against the real ledger and simulator.
 */
@ExtendWith(DatabaseExtension.class)
class RetentionReuseTest {

  @TempDir Path artifacts;

  @Test
  void an_operation_id_whose_row_the_retention_deleted_starts_a_new_operation() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      endedLongAgo("op-reused", 100);

      RetentionReport report = retentionPass(harness);
      harness.replayAndRecordPass(
          RetentionWorkflow.WORKFLOW_ID + "-test",
          RetentionWorkflowImpl.class,
          "retention-histories",
          "retention-deleted-one");

      assertThat(report.operationsDeleted()).isEqualTo(1);
      assertThat(report.transitionsDeleted()).isEqualTo(3);
      assertThat(harness.ledger.find("op-reused")).isEmpty();

      harness.client.start(GenerationHarness.request("op-reused"));
      OperationResult result = harness.client.awaitResult("op-reused", Duration.ofMinutes(1));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.postsFor("op-reused")).isEqualTo(1);
      assertThat(harness.row("op-reused").model()).isEqualTo("image-v1");
      assertThat(harness.ledger.history("op-reused"))
          .noneMatch(t -> t.event().equals("from_long_ago"));
    }
  }

  @Test
  void an_operation_id_whose_row_is_kept_with_another_request_is_refused_and_sends_nothing()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      endedLongAgo("op-kept", 10);

      RetentionReport report = retentionPass(harness);

      assertThat(report.operationsDeleted()).isZero();
      harness.client.start(GenerationHarness.request("op-kept"));
      assertThatThrownBy(() -> harness.client.awaitResult("op-kept", Duration.ofMinutes(1)))
          .isInstanceOf(WorkflowFailedException.class)
          .rootCause()
          .hasMessageContaining("was started with another request");
      assertThat(harness.postsFor("op-kept")).isZero();
      assertThat(harness.row("op-kept").model()).isEqualTo("image-v0");
      assertThat(harness.row("op-kept").phase()).isEqualTo(Phase.DELIVERED);
    }
  }

  private static RetentionReport retentionPass(GenerationHarness harness) {
    RetentionWorkflow pass =
        harness
            .temporal
            .getWorkflowClient()
            .newWorkflowStub(
                RetentionWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(RetentionWorkflow.WORKFLOW_ID + "-test")
                    .setTaskQueue(TaskQueues.OPERATIONS)
                    .build());
    return pass.applyRetention(new RetentionRequest(90, 3600));
  }

  /**
   * A delivered operation of another model, ended {@code daysAgo}, with three history rows and no
   * workflow left in Temporal (as after the namespace's retention).
   */
  private static void endedLongAgo(String operationId, int daysAgo) throws SQLException {
    GenerationRequest other =
        new GenerationRequest(operationId, "image-v0", "{\"prompt\":\"long ago\"}");
    try (Connection c = TestDatabase.dataSource().getConnection();
        PreparedStatement operation =
            c.prepareStatement(
                """
                INSERT INTO app_generation_operations
                    (operation_id, phase, next_action, model, request, remote_job_id,
                     created_at, phase_since, updated_at)
                VALUES (?, 'delivered', 'none', ?, ?::jsonb, 'gen_long_ago',
                        clock_timestamp() - make_interval(days => ? + 1),
                        clock_timestamp() - make_interval(days => ?),
                        clock_timestamp() - make_interval(days => ?))
                """);
        PreparedStatement history =
            c.prepareStatement(
                """
                INSERT INTO app_generation_transitions (operation_id, revision, event, accepted)
                SELECT ?, g, 'from_long_ago', true FROM generate_series(1, 3) g
                """)) {
      operation.setString(1, operationId);
      operation.setString(2, other.model());
      operation.setString(3, other.inputJson());
      operation.setInt(4, daysAgo);
      operation.setInt(5, daysAgo);
      operation.setInt(6, daysAgo);
      operation.executeUpdate();
      history.setString(1, operationId);
      history.executeUpdate();
    }
  }
}
