package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationSearchAttributes;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.worker.support.GenerationHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Operations end to end on the Temporal test server, PostgreSQL and the simulator. */
@ExtendWith(DatabaseExtension.class)
class GenerationWorkflowTest {

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

  @Test
  void an_operation_is_dispatched_once_observed_and_its_artifacts_delivered() throws Exception {
    harness.client.start(request("op-happy"));

    OperationResult result = harness.client.awaitResult("op-happy", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    // delivered.json is the same path before the credits-attribute marker.
    harness.replayAndRecord("op-happy", "delivered-with-credits");
    OperationRow row = harness.row("op-happy");
    assertThat(row.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(row.remoteJobId()).contains(result.remoteJobId());
    assertThat(row.deliveryManifestJson()).isPresent();
    assertThat(harness.postsFor("op-happy")).isEqualTo(1);
    try (var files = Files.walk(artifacts.resolve("generations"))) {
      assertThat(files.filter(Files::isRegularFile).count()).isGreaterThanOrEqualTo(1);
    }
    assertThat(harness.ledger.history("op-happy"))
        .extracting(t -> t.toPhase().orElse(""))
        .contains("submitting", "observing", "delivering", "delivered");
    // The estimate committed with the acceptance (no GENACE_MODEL_COSTS: 1 a render), in the
    // ledger and in describe.
    assertThat(row.credits()).contains(1L);
    assertThat(row.creditsCommittedAt()).isPresent();
    assertThat(harness.client.describe("op-happy").credits()).isEqualTo(1L);
    assertThat(
            harness
                .temporal
                .getWorkflowClient()
                .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-happy"))
                .describe()
                .getTypedSearchAttributes()
                .get(GenerationSearchAttributes.CREDITS))
        .as("the Web UI's GenaceCredits")
        .isEqualTo(1L);
  }

  @Test
  void starting_the_same_operation_twice_dispatches_once() throws Exception {
    var first = harness.client.start(request("op-twice"));
    var second = harness.client.start(request("op-twice"));
    harness.client.awaitResult("op-twice", Duration.ofMinutes(1));
    var third = harness.client.start(request("op-twice"));

    assertThat(first.alreadyExisted()).isFalse();
    assertThat(second.alreadyExisted()).isTrue();
    assertThat(third.alreadyExisted()).isTrue();
    assertThat(harness.postsFor("op-twice")).isEqualTo(1);
    await().until(() -> harness.row("op-twice").phase() == Phase.DELIVERED);
  }
}
