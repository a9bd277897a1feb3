package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.NewOperation;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.StackFixture;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.temporal.TemporalConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ops show} of an operation whose workflow cannot run: its workflow tasks keep failing (here
 * on an input the workflow cannot read; after a bad release, on a non-determinism error), which
 * Temporal retries while the run stays {@code RUNNING} and the ledger row does not move.
 */
@ExtendWith(DatabaseExtension.class)
class WorkflowCannotRunTest {

  @RegisterExtension static final StackFixture stack = new StackFixture();

  @Test
  void show_says_the_workflow_cannot_run_and_why() {
    stack.ledger().create(new NewOperation("stuck-1", "image-v1", "{}", "default"));
    try (TemporalConnection temporal = TemporalConnection.fromEnvironment(stack.env())) {
      GenerationHarness.startWorkflowThatCannotRun(temporal.workflowClient(), "stuck-1");
    }

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(stack.cli("ops", "show", "stuck-1").out())
                    .containsPattern(
                        "(?m)^workflow +the workflow cannot run: workflow_worker_unhandled_failure:"
                            + " .*GenerationRequest"));
    CliRunner.Result json = stack.cli("ops", "show", "stuck-1", "--json");
    assertThat(json.out()).contains("\"workflow\" : \"the workflow cannot run: ");
  }

  @Test
  void show_says_an_ended_operation_ended_without_asking_temporal() {
    stack.submit("fine-1");

    stack.awaitPhase("fine-1", com.genace.client.model.Phase.DELIVERED);
    assertThat(stack.cli("ops", "show", "fine-1").out()).containsPattern("(?m)^workflow +ended$");
  }
}
