package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.CancelRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.Phase;
import com.genace.worker.lifecycle.LedgerRetentionSchedule;
import com.genace.worker.lifecycle.OrphanSweepSchedule;
import com.genace.worker.support.RealTemporalServer;
import com.genace.workflows.lifecycle.RetentionRequest;
import com.genace.workflows.lifecycle.RetentionWorkflow;
import com.genace.workflows.lifecycle.SweepWorkflow;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cancellation and the fleet's Temporal Schedules on a real server (the Java test server has no
 * schedules): a terminated operation is found by the scheduled sweep and put in review, the
 * retention's schedule takes the last worker's settings, and the Web UI's current details say why
 * an operation ended or waits.
 */
@Tag("real-temporal")
@ExtendWith(DatabaseExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RealTemporalLifecycleTest {

  @TempDir static Path artifacts;
  private static RealTemporalServer server;

  @BeforeEach
  void connect() {
    if (server == null) {
      String address =
          RealTemporalServer.required(
              RealTemporalServer.ADDRESS_VARIABLE, "the real Temporal server");
      server = RealTemporalServer.connect(address, artifacts);
    }
  }

  @AfterAll
  static void disconnect() throws InterruptedException {
    if (server != null) {
      schedules().getHandle(SweepWorkflow.SCHEDULE_ID).delete();
      schedules().getHandle(RetentionWorkflow.SCHEDULE_ID).delete();
      server.close();
    }
  }

  private static ScheduleClient schedules() {
    return ScheduleClient.newInstance(
        server.workflowClient.getWorkflowServiceStubs(),
        ScheduleClientOptions.newBuilder().setNamespace(RealTemporalServer.NAMESPACE).build());
  }

  private static String currentDetails(String operationId) {
    return server
        .workflowClient
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId(operationId))
        .query(WorkflowClient.QUERY_TYPE_WORKFLOW_METADATA, WorkflowMetadata.class)
        .getCurrentDetails();
  }

  @Test
  void the_scheduled_sweep_resumes_the_observation_of_a_terminated_operation() {
    String id = "real-terminated-" + UUID.randomUUID();
    server.simulator.setFaults(server.simulator.faults().withJobDurationMs(600_000));
    server.client.start(request(id));
    await().atMost(Duration.ofSeconds(60)).until(() -> phase(id) == Phase.OBSERVING);
    var terminated =
        server.workflowClient.newUntypedWorkflowStub(GenerationWorkflow.workflowId(id));
    String terminatedRun = terminated.describe().getExecution().getRunId();
    terminated.terminate("clicked in the Web UI");

    String first = OrphanSweepSchedule.ensure(server.workflowClient, Duration.ofSeconds(2));
    String second = OrphanSweepSchedule.ensure(server.workflowClient, Duration.ofSeconds(2));

    assertThat(first).isIn("created", "updated");
    assertThat(second).isEqualTo("updated");
    // The row holds the job Genace accepted: a new run observes it, nobody is asked anything.
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () -> {
              var now =
                  server
                      .workflowClient
                      .newUntypedWorkflowStub(GenerationWorkflow.workflowId(id))
                      .describe();
              return !now.getExecution().getRunId().equals(terminatedRun)
                  && now.getStatus()
                      == io.temporal.api.enums.v1.WorkflowExecutionStatus
                          .WORKFLOW_EXECUTION_STATUS_RUNNING;
            });
    assertThat(phase(id)).isEqualTo(Phase.OBSERVING);
    assertThat(server.ledger.history(id)).noneMatch(t -> t.event().equals("workflow_closed"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> currentDetails(id).contains("observing"));
  }

  @Test
  void the_retention_schedule_takes_the_last_workers_settings_and_pauses_to_keep_everything() {
    String first =
        LedgerRetentionSchedule.ensure(server.workflowClient, new RetentionRequest(30, 3600));
    String second =
        LedgerRetentionSchedule.ensure(server.workflowClient, new RetentionRequest(0, 3600));

    assertThat(first).isIn("created", "updated");
    assertThat(second).isEqualTo("updated, paused (keeps everything)");
    Schedule schedule =
        schedules().getHandle(RetentionWorkflow.SCHEDULE_ID).describe().getSchedule();
    assertThat(schedule.getState().isPaused()).isTrue();
    assertThat(schedule.getState().getNote())
        .isEqualTo("GENACE_LEDGER_RETENTION_DAYS=0: the ledger keeps every operation");
    assertThat(((ScheduleActionStartWorkflow) schedule.getAction()).getWorkflowType())
        .isEqualTo("RetentionWorkflow");
    assertThat(schedule.getSpec().getIntervals().get(0).getEvery())
        .isEqualTo(LedgerRetentionSchedule.INTERVAL);
  }

  @Test
  void a_cancelled_operation_says_why_in_the_web_ui() {
    String id = "real-cancelled-" + UUID.randomUUID();
    server.simulator.setFaults(server.simulator.faults().withJobDurationMs(600_000));
    server.client.start(request(id));
    await().atMost(Duration.ofSeconds(60)).until(() -> phase(id) == Phase.OBSERVING);

    server.client.cancel(id, new CancelRequest("order cancelled", "shop"));

    await().atMost(Duration.ofSeconds(60)).until(() -> phase(id) == Phase.ABANDONED);
    assertThat(server.ledger.get(id).failureReason())
        .contains("cancelled by shop: order cancelled");
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> currentDetails(id).contains("cancelled by shop: order cancelled"));
  }

  private static Phase phase(String id) {
    return server.ledger.find(id).map(row -> row.phase()).orElse(null);
  }
}
