package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.ledger.ReviewEvidenceRow;
import com.genace.activities.review.ReviewSettings;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowStub;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review loop end to end: resolutions checked whole (update and signal), evidence gathered from
 * Genace's search, and reviews that settle themselves.
 */
@ExtendWith(DatabaseExtension.class)
class ReviewLoopTest {

  private static final ReviewSettings SELF_SETTLING =
      new ReviewSettings(true, Duration.ofSeconds(1), Duration.ofMillis(100));

  @TempDir Path artifacts;
  private GenerationHarness harness;

  @AfterEach
  void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  private OperationView awaitOperator(String operationId) {
    harness.awaitPhase(operationId, Phase.IN_REVIEW);
    await().until(() -> harness.client.describe(operationId).awaitsOperator());
    return harness.client.describe(operationId);
  }

  private void loseNextPost() {
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
  }

  @Test
  void a_job_id_the_ledger_would_refuse_is_refused_by_the_update_and_a_valid_abandon_then_ends_it()
      throws Exception {
    harness = new GenerationHarness(artifacts);
    loseNextPost();
    harness.client.start(request("op-wedge"));
    awaitOperator("op-wedge");

    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-wedge", new ReviewResolution("found_remote_job", "gen\n1", "x", "eve")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("control characters");
    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-wedge",
                    new ReviewResolution("found_remote_job", "g".repeat(201), "x", "eve")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("longer than 200");
    String ack =
        harness.client.resolve("op-wedge", new ReviewResolution("abandon", null, "give up", "eve"));

    assertThat(ack).isEqualTo("accepted abandon");
    assertThat(harness.client.awaitResult("op-wedge", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.ABANDONED);
    assertThat(harness.row("op-wedge").reviewResolvedBy()).contains("eve");
  }

  @Test
  void a_job_id_the_ledger_would_refuse_is_refused_by_signal_and_a_valid_abandon_then_ends_it()
      throws Exception {
    harness = new GenerationHarness(artifacts);
    loseNextPost();
    harness.client.start(request("op-wedge-signal"));
    awaitOperator("op-wedge-signal");

    harness.client.signalResolution(
        "op-wedge-signal", new ReviewResolution("found_remote_job", "gen\n1", "x", "eve"));
    await()
        .until(() -> harness.client.describe("op-wedge-signal").rejectedResolutions().size() == 1);
    assertThat(harness.client.describe("op-wedge-signal").rejectedResolutions().get(0))
        .contains("control characters");
    assertThat(harness.client.describe("op-wedge-signal").awaitsOperator()).isTrue();
    harness.client.signalResolution(
        "op-wedge-signal", new ReviewResolution("abandon", null, "give up", "eve"));

    assertThat(harness.client.awaitResult("op-wedge-signal", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.ABANDONED);
    harness.replayAndRecord("op-wedge-signal", "review-refused-then-abandon");
  }

  @Test
  void malformed_signals_are_refused_with_their_reason_and_change_nothing() throws Exception {
    harness = new GenerationHarness(artifacts);
    loseNextPost();
    harness.client.start(request("op-shapes"));
    awaitOperator("op-shapes");
    WorkflowStub stub =
        harness
            .temporal
            .getWorkflowClient()
            .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-shapes"));
    ObjectMapper json = new ObjectMapper();

    stub.signal(GenerationWorkflow.RESOLUTION_SIGNAL, List.of(1, 2));
    stub.signal(GenerationWorkflow.RESOLUTION_SIGNAL, "str");
    stub.signal(GenerationWorkflow.RESOLUTION_SIGNAL, json.readTree("{\"decision\":42}"));
    stub.signal(
        GenerationWorkflow.RESOLUTION_SIGNAL,
        json.readTree(
            "{\"decision\":\"abandon\",\"reason\":\"x\",\"resolvedBy\":\"y\",\"extra\":1}"));

    await().until(() -> harness.client.describe("op-shapes").rejectedResolutions().size() == 4);
    OperationView view = harness.client.describe("op-shapes");
    assertThat(view.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(view.rejectedResolutions())
        .satisfiesExactly(
            first -> assertThat(first).contains("[1,2]").contains("not array"),
            second -> assertThat(second).contains("\"str\"").contains("not string"),
            third -> assertThat(third).contains("field 'decision' must be a string"),
            fourth -> assertThat(fourth).contains("unknown field 'extra'"));
    assertThat(harness.row("op-shapes").phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(harness.postsFor("op-shapes")).isEqualTo(1);
    // What the Web UI shows as the workflow's current details.
    WorkflowMetadata metadata = stub.query("__temporal_workflow_metadata", WorkflowMetadata.class);
    assertThat(metadata.getCurrentDetails())
        .startsWith("**in_review**")
        .contains("**Evidence:** 1 job on Genace carries this operation id")
        .contains("### Resolve with the signal `resolveReconciliation`")
        .contains("{\"decision\":\"abandon\",\"reason\":\"<why>\",\"resolvedBy\":\"<your name>\"}")
        .contains("./genace ops resolve op-")
        .contains("**Refused resolutions** (4 in all, latest last):")
        .contains("unknown field 'extra'");
    assertThat(metadata.getCurrentDetails().indexOf("The latest resolution was refused"))
        .as("the latest refusal comes first")
        .isPositive()
        .isLessThan(metadata.getCurrentDetails().indexOf("**Evidence:**"));
  }

  @Test
  void another_operations_job_and_an_unknown_job_are_refused_by_update_and_signal()
      throws Exception {
    harness = new GenerationHarness(artifacts);
    loseNextPost();
    harness.client.start(request("op-mine"));
    awaitOperator("op-mine");
    harness.client.start(request("op-other"));
    OperationResult other = harness.client.awaitResult("op-other", Duration.ofMinutes(1));
    String foreign = other.remoteJobId();

    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-mine", new ReviewResolution("found_remote_job", foreign, "mine?", "eve")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("belongs to operation op-other");
    harness.client.signalResolution(
        "op-mine", new ReviewResolution("found_remote_job", "gen_nope", "typo", "eve"));
    await().until(() -> harness.client.describe("op-mine").rejectedResolutions().size() == 2);

    OperationView view = harness.client.describe("op-mine");
    assertThat(view.rejectedResolutions())
        .anySatisfy(refusal -> assertThat(refusal).contains("belongs to operation op-other"))
        .anySatisfy(refusal -> assertThat(refusal).contains("Genace does not know job gen_nope"));
    assertThat(view.awaitsOperator()).isTrue();
    String mine = harness.simulator.jobsForOperation("op-mine").get(0);
    harness.client.resolve(
        "op-mine", new ReviewResolution("found_remote_job", mine, "the right one", "eve"));
    OperationResult result = harness.client.awaitResult("op-mine", Duration.ofMinutes(1));
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.remoteJobId()).isEqualTo(mine);
    harness.replayAndRecord("op-mine", "review-foreign-job-refused");
  }

  @Test
  void not_submitted_is_refused_while_genace_holds_a_job_of_the_operation() {
    harness = new GenerationHarness(artifacts);
    loseNextPost();
    harness.client.start(request("op-exists"));
    OperationView view = awaitOperator("op-exists");
    assertThat(view.review().evidence().candidates()).hasSize(1);

    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-exists", new ReviewResolution("not_submitted", null, "retry", "eve")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("not_submitted refused");
    assertThat(harness.postsFor("op-exists")).isEqualTo(1);
  }

  @Test
  void a_review_with_exactly_one_job_of_the_operation_settles_itself() throws Exception {
    harness = new GenerationHarness(artifacts, SELF_SETTLING);
    loseNextPost();
    harness.client.start(request("op-settles"));

    OperationResult result = harness.client.awaitResult("op-settles", Duration.ofMinutes(1));

    String job = harness.simulator.jobsForOperation("op-settles").get(0);
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.remoteJobId()).isEqualTo(job);
    assertThat(harness.postsFor("op-settles")).isEqualTo(1);
    assertThat(harness.row("op-settles").reviewResolvedBy())
        .contains(GenerationWorkflow.RECONCILER);
    assertThat(harness.row("op-settles").reviewNote().orElseThrow())
        .contains("1 job on Genace carries this operation id: " + job);
    ReviewEvidenceRow kept = harness.ledger.reviewEvidence("op-settles").orElseThrow();
    assertThat(kept.summary()).contains(job);
    assertThat(harness.client.describe("op-settles").review().evidence().selfSettleJobId())
        .isEqualTo(job);
    harness.replayAndRecord("op-settles", "review-self-settled");
  }

  @Test
  void a_review_with_several_jobs_of_the_operation_waits_and_says_duplicates_exist()
      throws Exception {
    harness = new GenerationHarness(artifacts, SELF_SETTLING);
    // An earlier render of the same operation, e.g. from another system's retry.
    harness
        .genaceClient(GenerationHarness.API_KEY)
        .create(
            new CreateRequest(
                "image-v1",
                new ObjectMapper().createObjectNode().put("prompt", "a red fox"),
                "op-dup"));
    loseNextPost();
    harness.client.start(request("op-dup"));

    OperationView view = awaitOperator("op-dup");

    ReviewEvidence evidence = view.review().evidence();
    assertThat(evidence.candidates()).hasSize(2);
    assertThat(evidence.selfSettleJobId()).isNull();
    assertThat(evidence.summary()).startsWith("DUPLICATES: 2 jobs on Genace");
    assertThat(harness.ledger.reviewEvidence("op-dup").orElseThrow().summary())
        .startsWith("DUPLICATES");
    assertThat(harness.row("op-dup").phase()).isEqualTo(Phase.IN_REVIEW);
  }

  @Test
  void a_review_with_no_job_found_waits_for_an_operator() {
    harness =
        new GenerationHarness(
            artifacts, new ReviewSettings(true, Duration.ofSeconds(5), Duration.ofMillis(100)));
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1.0));
    harness.client.start(request("op-none"));
    harness.awaitPhase("op-none", Phase.IN_REVIEW);
    // Searches answered 503 say nothing: the search is repeated within its window.
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0));

    OperationView view = awaitOperator("op-none");

    assertThat(view.review().evidence().search()).isEqualTo(ReviewEvidence.SEARCHED);
    assertThat(view.review().evidence().candidates()).isEmpty();
    assertThat(view.review().evidence().summary()).startsWith("no job found after");
    assertThat(harness.row("op-none").phase()).isEqualTo(Phase.IN_REVIEW);
  }

  @Test
  void a_search_that_lags_creation_is_repeated_until_the_job_shows() throws Exception {
    harness =
        new GenerationHarness(
            artifacts, new ReviewSettings(true, Duration.ofSeconds(10), Duration.ofMillis(200)));
    harness.simulator.setFaults(
        harness.simulator.faults().withSearchLagMs(2500).withLosePostResponseNext(1));
    harness.client.start(request("op-lag"));

    OperationResult result = harness.client.awaitResult("op-lag", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(harness.row("op-lag").reviewResolvedBy()).contains(GenerationWorkflow.RECONCILER);
    assertThat(harness.postsFor("op-lag")).isEqualTo(1);
  }

  @Test
  void without_the_search_the_review_waits_for_an_operator_and_says_so() {
    harness = new GenerationHarness(artifacts, SELF_SETTLING);
    harness.simulator.setFaults(
        harness.simulator.faults().withSearchEnabled(false).withLosePostResponseNext(1));
    harness.client.start(request("op-no-search"));

    OperationView view = awaitOperator("op-no-search");

    assertThat(view.review().evidence().search()).isEqualTo(ReviewEvidence.NOT_OFFERED);
    assertThat(view.review().evidence().summary()).contains("search not offered");
    assertThat(harness.row("op-no-search").phase()).isEqualTo(Phase.IN_REVIEW);
  }

  @Test
  void with_self_settling_off_one_job_is_evidence_for_the_operator_only() {
    harness = new GenerationHarness(artifacts);
    loseNextPost();
    harness.client.start(request("op-off"));

    OperationView view = awaitOperator("op-off");

    assertThat(view.review().evidence().candidates()).hasSize(1);
    assertThat(view.review().evidence().selfSettleJobId()).isNull();
    assertThat(harness.row("op-off").phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(harness.ledger.openReviewEvidence(10))
        .singleElement()
        .satisfies(row -> assertThat(row.operationId()).isEqualTo("op-off"));
  }
}
