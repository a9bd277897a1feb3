package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.worker.support.GenerationHarness;
import io.temporal.api.enums.v1.EventType;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first dispatch attempt also registers the operation. When no dispatch worker takes it (every
 * worker has dispatch paused), the operations queue registers it within seconds, and the operation
 * is dispatched once a dispatch worker polls: real workers on the Temporal test server, the real
 * ledger, the simulator over HTTP.
 */
@ExtendWith(DatabaseExtension.class)
class FirstDispatchTest {

  @TempDir Path artifacts;

  @Test
  void an_operation_no_dispatch_worker_takes_is_registered_and_later_dispatched_once()
      throws Exception {
    try (GenerationHarness harness = GenerationHarness.withoutWorkers(artifacts)) {
      // Workflows, the operations queue and observation; no worker polls the dispatch queue.
      WorkerFactory operations = harness.newDetachedFactory();
      GenerationWorkers.operationsWorker(
          operations,
          harness
              .workers("worker-o", harness.genaceClient(GenerationHarness.API_KEY))
              .dependencies(),
          WorkerOptions.getDefaultInstance());
      operations.start();
      WorkerFactory dispatch = harness.newDetachedFactory();
      try {
        harness.client.start(request("op-queued"));

        OperationRow registered =
            await()
                .atMost(Duration.ofSeconds(45))
                .ignoreExceptions() // until the operation is in the ledger
                .until(() -> harness.row("op-queued"), row -> row.phase() == Phase.PENDING);
        assertThat(registered.dispatchAttempts()).isZero();
        assertThat(harness.postsFor("op-queued")).isZero();

        GenerationWorkers.dispatchWorker(
            dispatch,
            harness
                .workers("worker-d", harness.genaceClient(GenerationHarness.API_KEY))
                .dependencies(),
            WorkerOptions.getDefaultInstance());
        dispatch.start();
        harness.awaitPhase("op-queued", Phase.DELIVERED);
        OperationResult result = harness.client.awaitResult("op-queued", Duration.ofMinutes(1));

        assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
        assertThat(harness.postsFor("op-queued")).isEqualTo(1);
        assertThat(
                harness
                    .temporal
                    .getWorkflowClient()
                    .fetchHistory(GenerationWorkflow.workflowId("op-queued"))
                    .getEvents()
                    .stream()
                    .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
                    .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType())
                    .map(type -> type.getName()))
            .startsWith("RegisterAndDispatch", "Register", "Dispatch");
        harness.replayAndRecord("op-queued", "first-dispatch-not-started-then-delivered");
      } finally {
        dispatch.shutdownNow();
        operations.shutdownNow();
      }
    }
  }
}
