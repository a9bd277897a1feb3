package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.CancelRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.worker.support.GenerationHarness;
import io.temporal.api.enums.v1.EventType;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cancel accepted while the dispatch attempt waits in its queue, because every dispatch worker
 * stopped polling (as a paused fleet, a drain, an open circuit or another configuration version
 * makes them), never lets that attempt POST once polling resumes: Temporal cancels the attempt no
 * worker started. Real workers on the Temporal test server, the real ledger, the simulator.
 */
@ExtendWith(DatabaseExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class QueuedDispatchCancelTest {

  @TempDir Path artifacts;

  @Test
  void a_cancel_while_dispatch_is_paused_sends_no_post_after_dispatch_resumes() throws Exception {
    try (GenerationHarness harness = GenerationHarness.withoutWorkers(artifacts)) {
      WorkerFactory operations = harness.newDetachedFactory();
      GenerationWorkers.operationsWorker(
          operations,
          harness
              .workers("worker-o", harness.genaceClient(GenerationHarness.API_KEY))
              .dependencies(),
          WorkerOptions.getDefaultInstance());
      operations.start();
      // While dispatch is paused, no worker polls the dispatch queue: this one has not started
      // (a poller suspended before its factory starts would poll all the same: the SDK creates the
      // poller on start).
      WorkerFactory dispatch = harness.newDetachedFactory();
      GenerationWorkers.dispatchWorker(
          dispatch,
          harness
              .workers("worker-d", harness.genaceClient(GenerationHarness.API_KEY))
              .dependencies(),
          WorkerOptions.getDefaultInstance());
      try {
        harness.client.start(request("op-queued"));
        // Past the first attempt's wait in its queue: the operation is registered apart and its
        // next attempt waits in the queue, with no deadline of its own.
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> scheduledActivities(harness, "op-queued") >= 3);

        String answer =
            harness.client.cancel("op-queued", new CancelRequest("order withdrawn", "shop"));
        dispatch.start(); // dispatch resumes
        OperationResult result = harness.client.awaitResult("op-queued", Duration.ofMinutes(2));

        assertThat(answer).contains("cancelling from phase submitting");
        assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
        assertThat(result.remoteJobId()).isNull();
        OperationRow row = harness.row("op-queued");
        assertThat(row.phase()).isEqualTo(Phase.ABANDONED);
        assertThat(row.failureReason()).contains("cancelled by shop: order withdrawn");
        assertThat(row.dispatchAttempts()).isZero();
        // The dispatch worker polls the queue now: the cancelled attempt is never handed to it.
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(() -> harness.postsFor("op-queued") == 0);
        harness.replayAndRecord("op-queued", "cancel-queued-dispatch");
      } finally {
        dispatch.shutdownNow();
        operations.shutdownNow();
      }
    }
  }

  /** Activities scheduled so far: the first dispatch, the registration apart, the next dispatch. */
  private static long scheduledActivities(GenerationHarness harness, String operationId) {
    return harness
        .temporal
        .getWorkflowClient()
        .fetchHistory(GenerationWorkflow.workflowId(operationId))
        .getEvents()
        .stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .count();
  }
}
