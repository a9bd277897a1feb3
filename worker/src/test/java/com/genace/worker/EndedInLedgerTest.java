package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.OperationResult;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ledger step that finds the operation ended (its review resolved elsewhere, say by a retried
 * attempt whose first completion was lost) ends the workflow the way the ledger says, with a
 * result, instead of failing the workflow.
 */
@ExtendWith(DatabaseExtension.class)
class EndedInLedgerTest {

  @TempDir Path artifacts;

  @Test
  void a_resolution_the_ledger_finds_ended_ends_the_workflow_as_the_ledger_says() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      // A 5xx that created nothing: the review's evidence shows no job.
      harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1.0));
      harness.client.start(request("op-ended"));
      harness.awaitPhase("op-ended", Phase.IN_REVIEW);
      await().until(() -> harness.client.describe("op-ended").awaitsOperator());
      harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0));
      // The ledger ends the operation behind the workflow's back.
      ClaimResult.Acquired reconcile =
          (ClaimResult.Acquired)
              harness.ledger.claim("op-ended", "elsewhere", NextAction.RECONCILE);
      assertThat(
              harness.ledger.resolveReview(
                  reconcile.lease(),
                  ReviewDecision.ABANDON,
                  Optional.empty(),
                  "carol",
                  "abandoned from another console"))
          .isEqualTo(WriteResult.APPLIED);

      assertThatThrownBy(
              () ->
                  harness.client.resolve(
                      "op-ended",
                      new ReviewResolution("not_submitted", null, "nothing there", "bob")))
          .isInstanceOf(ResolutionRefusedException.class)
          .hasMessageContaining("already ended abandoned");
      OperationResult result = harness.client.awaitResult("op-ended", Duration.ofMinutes(1));

      assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
      assertThat(result.detail()).contains("already ended abandoned");
      assertThat(harness.row("op-ended").phase()).isEqualTo(Phase.ABANDONED);
      assertThat(harness.postsFor("op-ended")).isEqualTo(1);
      harness.replayAndRecord("op-ended", "review-resolution-finds-operation-ended");
    }
  }
}
