package com.genace.worker;

import static com.genace.worker.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.genace.delivery.ArtifactContent;
import com.genace.delivery.ArtifactStore;
import com.genace.delivery.LocalDirectoryArtifactStore;
import com.genace.dispatch.DispatchGate;
import com.genace.ledger.TransitionRow;
import com.genace.model.Phase;
import com.genace.testing.DatabaseExtension;
import com.genace.workflows.OperationResult;
import com.genace.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Work resumes from durable state after a worker goes away mid-operation. */
@ExtendWith(DatabaseExtension.class)
class WorkerRestartTest {

  @TempDir Path artifacts;

  @Test
  void observation_resumes_from_the_durable_job_id_on_another_worker() throws Exception {
    try (GenerationHarness harness =
        new GenerationHarness(
            artifacts,
            GenerationHarness.simulator(),
            GenerationHarness.API_KEY,
            null,
            Duration.ofSeconds(2),
            false)) {
      harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(4000));
      // Workflow code runs on a worker that stays; worker-a runs the activities and goes away.
      // (The test server hands tasks to polls cut by shutdownNow, so the victim polls activities
      // only; a real server does not have that problem.)
      WorkerFactory workflows = harness.startDetachedWorkers("worker-w", true, false);
      WorkerFactory first = activityWorker(harness, "worker-a");
      harness.client.start(request("op-restart"));
      String remoteJobId = harness.awaitPhase("op-restart", Phase.OBSERVING).remoteJobId().get();
      org.awaitility.Awaitility.await()
          .until(() -> harness.row("op-restart").leaseOwner().orElse("").equals("worker-a"));

      first.shutdownNow(); // worker-a goes away while it holds the observe lease
      WorkerFactory second = activityWorker(harness, "worker-b");
      try {
        OperationResult result = harness.client.awaitResult("op-restart", Duration.ofMinutes(2));

        assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
        assertThat(result.remoteJobId()).isEqualTo(remoteJobId);
        assertThat(harness.postsFor("op-restart")).isEqualTo(1);
        assertThat(harness.ledger.history("op-restart"))
            .filteredOn(t -> t.event().equals("claimed") && t.detailsJson().contains("observe"))
            .extracting(t -> t.owner().orElse(""))
            .containsSubsequence("worker-a", "worker-b");
      } finally {
        second.shutdownNow();
        workflows.shutdownNow();
      }
    }
  }

  private static WorkerFactory activityWorker(GenerationHarness harness, String workerId) {
    WorkerFactory factory =
        WorkerFactory.newInstance(
            WorkflowClient.newInstance(
                harness.temporal.getWorkflowServiceStubs(),
                harness.temporal.getWorkflowClient().getOptions()));
    GenerationWorkers.Dependencies deps =
        harness.dependencies(
            workerId, harness.genaceClient(GenerationHarness.API_KEY), DispatchGate.OPEN);
    GenerationWorkers.registerOperationsActivities(factory.newWorker(TaskQueues.OPERATIONS), deps);
    GenerationWorkers.dispatchWorker(factory, deps, WorkerOptions.getDefaultInstance());
    factory.start();
    return factory;
  }

  /** Copies, then fails before the manifest is recorded: what a crash in between would do. */
  private static final class CrashAfterFirstCopy implements ArtifactStore {
    private final ArtifactStore store;
    final AtomicInteger puts = new AtomicInteger();

    CrashAfterFirstCopy(ArtifactStore store) {
      this.store = store;
    }

    @Override
    public boolean holds(String key, long bytes, String sha256) {
      return store.holds(key, bytes, sha256);
    }

    @Override
    public void check() {
      store.check();
    }

    @Override
    public void put(String key, ArtifactContent content) {
      store.put(key, content);
      if (puts.incrementAndGet() == 1) {
        throw new IllegalStateException("worker crashed after copying " + key);
      }
    }

    @Override
    public String locate(String key) {
      return store.locate(key);
    }
  }

  @Test
  void delivery_interrupted_between_copy_and_record_does_not_copy_again() throws Exception {
    CrashAfterFirstCopy store = new CrashAfterFirstCopy(new LocalDirectoryArtifactStore(artifacts));
    try (GenerationHarness harness =
        new GenerationHarness(
            artifacts,
            GenerationHarness.simulator(),
            GenerationHarness.API_KEY,
            store,
            Duration.ofSeconds(2))) {
      harness.client.start(request("op-deliver"));

      OperationResult result = harness.client.awaitResult("op-deliver", Duration.ofMinutes(1));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      int outputs = outputCount(harness);
      assertThat(store.puts.get()).as("one copy per output, none repeated").isEqualTo(outputs);
      assertThat(harness.ledger.history("op-deliver"))
          .filteredOn(t -> t.event().equals("claimed"))
          .extracting(TransitionRow::detailsJson)
          .filteredOn(d -> d.contains("deliver"))
          .hasSize(2);
    }
  }

  private static int outputCount(GenerationHarness harness) throws Exception {
    String manifest = harness.row("op-deliver").deliveryManifestJson().orElseThrow();
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(manifest)
        .path("artifacts")
        .size();
  }
}
