package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.lifecycle.RestoreRecovery;
import com.genace.activities.recovery.RunRestarts;
import com.genace.activities.recovery.TemporalHistory;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.LedgerBackup;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import com.genace.workflows.lifecycle.SweepReport;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two stores disagree, and the sweeper trusts neither alone: a ledger restored from a backup
 * older than what Temporal's histories hold moves forward to them without a person (no review, no
 * second POST), and a row whose workflow Temporal no longer holds observes and delivers the job the
 * row holds. Each test fails if the sweeper stops reading the history (it would send the row to
 * review, as 0.1.0 did).
 */
@ExtendWith(DatabaseExtension.class)
class RestoreRecoveryTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path artifacts;

  private GenerationHarness harness;
  private final AtomicInteger sweeps = new AtomicInteger();

  @BeforeEach
  void start() {
    harness = new GenerationHarness(artifacts);
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  private SweepReport sweep() {
    return harness.sweep(sweeps.incrementAndGet());
  }

  @Test
  void a_ledger_restored_to_pending_after_delivery_ends_delivered_as_the_history_shows()
      throws Exception {
    harness.dispatchClosed.set("paused for the backup");
    List<String> ids = List.of("op-restored-1", "op-restored-2");
    for (String id : ids) {
      harness.client.start(request(id));
      harness.awaitPhase(id, Phase.PENDING);
    }
    LedgerBackup backup = LedgerBackup.take(TestDatabase.dataSource(), ids);
    harness.dispatchClosed.set(null);
    for (String id : ids) {
      assertThat(harness.client.awaitResult(id, Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.DELIVERED);
    }
    List<OperationRow> delivered = ids.stream().map(harness::row).toList();
    backup.restore();
    assertThat(harness.row(ids.get(0)).phase()).isEqualTo(Phase.PENDING);

    SweepReport report = sweep();

    assertThat(report.orphans()).containsExactlyInAnyOrderElementsOf(ids);
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      OperationRow row = harness.row(id);
      assertThat(row.phase()).as(id).isEqualTo(Phase.DELIVERED);
      assertThat(row.remoteJobId()).isEqualTo(delivered.get(i).remoteJobId());
      assertThat(row.credits()).isEqualTo(delivered.get(i).credits());
      assertThat(JSON.readTree(row.deliveryManifestJson().orElseThrow()))
          .isEqualTo(JSON.readTree(delivered.get(i).deliveryManifestJson().orElseThrow()));
      TransitionRow repair = last(id);
      assertThat(repair.event()).isEqualTo("recovered_end");
      assertThat(repair.detailsJson())
          .contains("\"run_id\"", "COMPLETED", "a run completed delivered");
      assertThat(harness.postsFor(id)).as("POSTs of " + id).isEqualTo(1);
    }
    assertThat(sweep().orphans()).as("a second walk finds nothing").isEmpty();
  }

  @Test
  void a_restored_row_whose_delivered_artifacts_are_gone_is_observed_and_delivered_again()
      throws Exception {
    harness.dispatchClosed.set("paused for the backup");
    harness.client.start(request("op-store-lost"));
    harness.awaitPhase("op-store-lost", Phase.PENDING);
    LedgerBackup backup = LedgerBackup.take(TestDatabase.dataSource(), List.of("op-store-lost"));
    harness.dispatchClosed.set(null);
    OperationResult first = harness.client.awaitResult("op-store-lost", Duration.ofMinutes(1));
    String job = harness.row("op-store-lost").remoteJobId().orElseThrow();
    backup.restore();
    try (var files = java.nio.file.Files.walk(artifacts)) {
      files.filter(java.nio.file.Files::isRegularFile).forEach(RestoreRecoveryTest::delete);
    }

    assertThat(sweep().orphans()).containsExactly("op-store-lost");

    assertThat(harness.row("op-store-lost").remoteJobId()).contains(job);
    assertThat(harness.ledger.history("op-store-lost"))
        .filteredOn(t -> t.event().equals("recovered"))
        .singleElement()
        .satisfies(t -> assertThat(t.detailsJson()).contains(job, "dispatch accepted"));
    awaitDelivered("op-store-lost");
    assertThat(harness.row("op-store-lost").deliveryManifestJson()).isPresent();
    assertThat(first.artifacts()).allSatisfy(a -> assertThat(artifacts.resolve(a.key())).exists());
    assertThat(harness.postsFor("op-store-lost")).isEqualTo(1);
  }

  @Test
  void a_row_observing_a_job_whose_workflow_temporal_lost_is_observed_and_delivered() {
    // The ledger survived, Temporal's store did not: the row holds the job, no workflow exists.
    String id = "op-history-lost";
    harness.ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"a red fox\"}", "shop"));
    var claim = (ClaimResult.Acquired) harness.ledger.claimToSubmit(id, "lost-worker");
    ObjectNode input = JSON.createObjectNode().put("prompt", "a red fox");
    var accepted =
        (CreateOutcome.Accepted)
            harness
                .genaceClient(GenerationHarness.API_KEY)
                .create(new CreateRequest("image-v1", input, id));
    assertThat(harness.ledger.recordAccepted(claim.lease(), accepted.remoteJobId()))
        .isEqualTo(WriteResult.APPLIED);
    assertThat(workflowStatus(id)).isEqualTo("MISSING");

    assertThat(sweep().orphans()).containsExactly(id);

    awaitDelivered(id);
    assertThat(harness.row(id).remoteJobId()).contains(accepted.remoteJobId());
    assertThat(harness.ledger.history(id)).noneMatch(t -> t.event().equals("workflow_closed"));
    var priority =
        harness
            .temporal
            .getWorkflowClient()
            .fetchHistory(GenerationWorkflow.workflowId(id))
            .getHistory()
            .getEvents(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getPriority();
    assertThat(priority.getFairnessKey())
        .as("the restarted run shares out its account's turns, as a client's start does")
        .isEqualTo("shop");
    assertThat(harness.postsFor(id))
        .as("the job the row holds, observed: no second POST")
        .isEqualTo(1);
  }

  @Test
  void not_submitted_is_refused_naming_the_job_temporal_s_history_holds() throws Exception {
    // 0.1.0's sweeper, after the restore: the row swept to review, a run waiting there, while the
    // completed run's history holds the POST's answer. Search is off: the review finds nothing.
    harness.simulator.setFaults(harness.simulator.faults().withSearchEnabled(false));
    harness.dispatchClosed.set("paused for the backup");
    harness.client.start(request("op-refused"));
    harness.awaitPhase("op-refused", Phase.PENDING);
    LedgerBackup backup = LedgerBackup.take(TestDatabase.dataSource(), List.of("op-refused"));
    harness.dispatchClosed.set(null);
    harness.client.awaitResult("op-refused", Duration.ofMinutes(1));
    String job = harness.row("op-refused").remoteJobId().orElseThrow();
    backup.restore();
    OperationRow restored = harness.row("op-refused");
    assertThat(
            harness.ledger.sweepToReview(
                "op-refused",
                restored.revision(),
                "sweeper-0.1.0",
                "{\"reason\":\"workflow_closed\"}"))
        .isTrue();
    new RunRestarts(harness.temporal.getWorkflowClient())
        .inReview(harness.row("op-refused"), "its previous workflow was COMPLETED");
    await().until(() -> harness.client.describe("op-refused").awaitsOperator());

    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-refused",
                    new ReviewResolution("not_submitted", null, "nothing found", "mallory")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining(
            "not_submitted refused: a POST of this operation may have been accepted")
        .hasMessageContaining("Temporal's history holds job " + job + " (dispatch accepted in run")
        .hasMessageContaining("closed COMPLETED");

    assertThat(harness.row("op-refused").phase()).isEqualTo(Phase.IN_REVIEW);
    harness.client.resolve(
        "op-refused", new ReviewResolution("found_remote_job", job, "the history's job", "alice"));
    awaitDelivered("op-refused");
    assertThat(harness.postsFor("op-refused")).as("no second POST").isEqualTo(1);
  }

  @Test
  void ops_recover_re_creates_rows_the_ledger_lost_from_a_dry_run_on_and_is_idempotent()
      throws Exception {
    Instant backupTakenAt = Instant.now().minusSeconds(1);
    // The backup holds neither operation: both were created after it.
    LedgerBackup backup =
        LedgerBackup.take(TestDatabase.dataSource(), List.of("op-lost-done", "op-lost-running"));
    harness.client.start(request("op-lost-done"));
    harness.client.awaitResult("op-lost-done", Duration.ofMinutes(1));
    OperationRow done = harness.row("op-lost-done");
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(6000));
    harness.client.start(request("op-lost-running"));
    String job = harness.awaitPhase("op-lost-running", Phase.OBSERVING).remoteJobId().orElseThrow();
    backup.restore();
    assertThat(harness.ledger.find("op-lost-done")).isEmpty();

    RestoreRecovery.Report dryRun = recover(backupTakenAt, false);

    assertThat(dryRun.steps())
        .extracting(RestoreRecovery.Step::operationId, RestoreRecovery.Step::detail)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                "op-lost-done",
                "would re-created delivered (job " + done.remoteJobId().orElseThrow() + ")"),
            org.assertj.core.groups.Tuple.tuple(
                "op-lost-running", "would re-created observing (job " + job + ")"));
    assertThat(harness.ledger.find("op-lost-done")).as("a dry run writes nothing").isEmpty();

    RestoreRecovery.Report applied = recover(backupTakenAt, true);

    assertThat(applied.steps()).extracting(RestoreRecovery.Step::action).containsOnly("recreated");
    OperationRow recreated = harness.row("op-lost-done");
    assertThat(recreated.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(recreated.remoteJobId()).isEqualTo(done.remoteJobId());
    assertThat(recreated.credits()).isEqualTo(done.credits());
    assertThat(JSON.readTree(recreated.deliveryManifestJson().orElseThrow()))
        .isEqualTo(JSON.readTree(done.deliveryManifestJson().orElseThrow()));
    assertThat(harness.ledger.history("op-lost-done"))
        .singleElement()
        .satisfies(t -> assertThat(t.event()).isEqualTo("recreated"));
    awaitDelivered("op-lost-running");
    assertThat(harness.row("op-lost-running").remoteJobId()).contains(job);
    assertThat(recover(backupTakenAt, true).steps()).as("run again: nothing left").isEmpty();
    assertThat(harness.postsFor("op-lost-done")).isEqualTo(1);
    assertThat(harness.postsFor("op-lost-running")).isEqualTo(1);
  }

  @Test
  void a_row_restored_behind_its_running_run_is_caught_up_by_ops_recover_and_the_run_delivers()
      throws Exception {
    harness.dispatchClosed.set("paused for the backup");
    harness.client.start(request("op-behind"));
    harness.awaitPhase("op-behind", Phase.PENDING);
    Instant backupTakenAt = Instant.now();
    LedgerBackup backup = LedgerBackup.take(TestDatabase.dataSource(), List.of("op-behind"));
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(5000));
    harness.dispatchClosed.set(null);
    String job = harness.awaitPhase("op-behind", Phase.OBSERVING).remoteJobId().orElseThrow();
    backup.restore();

    RestoreRecovery.Report report = recover(backupTakenAt, true);

    assertThat(report.steps())
        .singleElement()
        .satisfies(
            step -> {
              assertThat(step.operationId()).isEqualTo("op-behind");
              assertThat(step.action()).isEqualTo("observing");
              assertThat(step.detail()).contains(job, "its run goes on");
            });
    awaitDelivered("op-behind");
    assertThat(harness.row("op-behind").remoteJobId()).contains(job);
    assertThat(harness.postsFor("op-behind")).as("never dispatched again").isEqualTo(1);
  }

  @Test
  void the_sweeper_catches_up_a_row_restored_behind_its_running_run_which_never_posts_again()
      throws Exception {
    harness.dispatchClosed.set("paused for the backup");
    harness.client.start(request("op-behind-swept"));
    harness.awaitPhase("op-behind-swept", Phase.PENDING);
    LedgerBackup backup = LedgerBackup.take(TestDatabase.dataSource(), List.of("op-behind-swept"));
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(5000));
    harness.dispatchClosed.set(null);
    String job = harness.awaitPhase("op-behind-swept", Phase.OBSERVING).remoteJobId().orElseThrow();
    backup.restore();
    assertThat(harness.row("op-behind-swept").phase()).isEqualTo(Phase.PENDING);

    SweepReport report = sweep();

    assertThat(report.behindRunning()).containsExactly("op-behind-swept");
    assertThat(report.orphans()).isEmpty();
    TransitionRow repair = last("op-behind-swept");
    assertThat(repair.event()).isEqualTo("recovered");
    assertThat(repair.detailsJson()).contains(job, "the running run holds job", "RUNNING");
    awaitDelivered("op-behind-swept");
    assertThat(harness.row("op-behind-swept").remoteJobId()).contains(job);
    assertThat(harness.postsFor("op-behind-swept")).as("never dispatched again").isEqualTo(1);
    assertThat(sweep().behindRunning()).as("a second pass finds nothing").isEmpty();
  }

  @Test
  void the_sweeper_writes_back_the_row_of_a_running_run_the_ledger_lost() throws Exception {
    // The backup is older than the operation: the restored ledger holds no row of it.
    LedgerBackup backup =
        LedgerBackup.take(TestDatabase.dataSource(), List.of("op-lost-observing"));
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(6000));
    harness.client.start(request("op-lost-observing"));
    String job =
        harness.awaitPhase("op-lost-observing", Phase.OBSERVING).remoteJobId().orElseThrow();
    backup.restore();
    assertThat(harness.ledger.find("op-lost-observing")).isEmpty();

    SweepReport report = sweep();

    assertThat(report.behindRunning()).containsExactly("op-lost-observing");
    assertThat(harness.ledger.history("op-lost-observing"))
        .first()
        .satisfies(t -> assertThat(t.event()).isEqualTo("recreated"));
    awaitDelivered("op-lost-observing");
    assertThat(harness.row("op-lost-observing").remoteJobId()).contains(job);
    assertThat(harness.postsFor("op-lost-observing")).as("never dispatched again").isEqualTo(1);
    assertThat(sweep().behindRunning()).as("a second pass finds nothing").isEmpty();
  }

  private RestoreRecovery.Report recover(Instant since, boolean apply) {
    return new RestoreRecovery(
            harness.ledger,
            harness.temporal.getWorkflowClient(),
            new TemporalHistory(harness.temporal.getWorkflowClient()),
            new LocalDirectoryArtifactStore(artifacts),
            "ops-recover",
            apply)
        .run(since, line -> {});
  }

  @Test
  void a_run_under_another_id_than_its_operation_s_fails_before_registering_or_posting() {
    GenerationWorkflow forged =
        harness
            .temporal
            .getWorkflowClient()
            .newWorkflowStub(
                GenerationWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId("generation/op-someone-else")
                    .setTaskQueue(TaskQueues.OPERATIONS)
                    .build());

    assertThatThrownBy(() -> forged.run(request("op-forged"), null))
        .isInstanceOf(io.temporal.client.WorkflowFailedException.class)
        .rootCause()
        .hasMessageContaining(
            "operation op-forged runs only as workflow generation/op-forged, not"
                + " generation/op-someone-else");

    assertThat(harness.ledger.find("op-forged")).isEmpty();
    assertThat(harness.ledger.find("op-someone-else")).isEmpty();
    assertThat(harness.postsFor("op-forged")).isZero();
  }

  private void awaitDelivered(String id) {
    await().atMost(Duration.ofMinutes(1)).until(() -> harness.row(id).phase() == Phase.DELIVERED);
  }

  private String workflowStatus(String id) {
    try {
      WorkflowExecutionStatus status =
          harness
              .temporal
              .getWorkflowClient()
              .newUntypedWorkflowStub(GenerationWorkflow.workflowId(id))
              .describe()
              .getStatus();
      return status.name();
    } catch (io.temporal.client.WorkflowNotFoundException e) {
      return "MISSING";
    }
  }

  private TransitionRow last(String id) {
    List<TransitionRow> history = harness.ledger.history(id);
    return history.get(history.size() - 1);
  }

  private static void delete(Path file) {
    try {
      java.nio.file.Files.delete(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
