package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.delivery.ArtifactContent;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.RemoteJob;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.recovery.TemporalHistory;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.OperationResult;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.worker.support.ForwardingArtifactStore;
import com.genace.worker.support.GenerationHarness;
import com.genace.workflows.GenerationWorkflowImpl;
import com.genace.workflows.observation.ObservationActivities;
import com.genace.workflows.observation.ObservationResult;
import io.temporal.activity.Activity;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Work resumes from durable state after a worker goes away mid-operation. */
@ExtendWith(DatabaseExtension.class)
class WorkerRestartTest {

  @TempDir Path artifacts;

  /**
   * A worker whose status poll never returns and which ignores interrupts, so that it never reports
   * back either: as if killed in the middle of a status poll. {@link #bury} lets the thread end.
   */
  private static final class DiesMidPoll implements GenaceClient {
    final CountDownLatch polling = new CountDownLatch(1);
    private final CountDownLatch buried = new CountDownLatch(1);

    @Override
    public JobSnapshot get(String remoteJobId) {
      polling.countDown();
      while (buried.getCount() > 0) {
        try {
          buried.await();
        } catch (InterruptedException e) {
          // A dead worker does not notice its own shutdown.
        }
      }
      throw new IllegalStateException("this worker is dead");
    }

    void bury() {
      buried.countDown();
    }

    @Override
    public CreateOutcome create(CreateRequest request) {
      throw new UnsupportedOperationException("this worker only observes");
    }

    @Override
    public List<String> listModels() {
      throw new UnsupportedOperationException();
    }

    @Override
    public InputStream openOutput(JobOutput output) {
      throw new UnsupportedOperationException("this worker only observes");
    }

    @Override
    public Optional<RemoteJob> lookUp(String remoteJobId) {
      throw new UnsupportedOperationException("this worker only observes");
    }

    @Override
    public Optional<List<RemoteJob>> search(String operationId) {
      throw new UnsupportedOperationException("this worker only observes");
    }
  }

  @Test
  void a_worker_that_dies_mid_poll_leaves_no_lease_and_another_resumes_from_the_durable_job_id()
      throws Exception {
    try (GenerationHarness harness = GenerationHarness.withoutWorkers(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(2000));
      // Workflows, registration, dispatch and delivery run on worker-w, which stays; observation
      // runs first on worker-a alone, which dies during its first status poll.
      WorkerFactory workflows = workflowWorker(harness, "worker-w");
      DiesMidPoll dying = new DiesMidPoll();
      WorkerFactory first = observationWorker(harness, "worker-a", dying);
      harness.client.start(request("op-restart"));
      String remoteJobId = harness.awaitPhase("op-restart", Phase.OBSERVING).remoteJobId().get();
      assertThat(dying.polling.await(30, TimeUnit.SECONDS)).isTrue();
      // No lease is held while the GET is out, so nothing waits for one to expire.
      assertThat(harness.row("op-restart").leaseOwner()).isEmpty();

      first.shutdownNow();
      WorkerFactory second =
          observationWorker(harness, "worker-b", harness.genaceClient(GenerationHarness.API_KEY));
      try {
        OperationResult result = harness.client.awaitResult("op-restart", Duration.ofMinutes(1));

        assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
        harness.replayAndRecord("op-restart", "observation-worker-crash");
        assertThat(result.remoteJobId()).isEqualTo(remoteJobId);
        assertThat(harness.postsFor("op-restart")).isEqualTo(1);
        // worker-a died before writing anything: every snapshot is worker-b's.
        assertThat(harness.ledger.history("op-restart"))
            .filteredOn(t -> t.accepted() && t.event().equals("snapshot"))
            .extracting(t -> t.owner().orElse(""))
            .isNotEmpty()
            .containsOnly("worker-b");
      } finally {
        second.shutdownNow();
        workflows.shutdownNow();
        dying.bury();
      }
    }
  }

  /** Takes the waiting activity's task and never runs it: a worker that froze right after. */
  private static final class TakesTheTaskAndFreezes implements ObservationActivities {
    final CountDownLatch taken = new CountDownLatch(1);

    @Override
    public ObservationResult awaitRemoteJob(String operationId) {
      taken.countDown();
      Activity.getExecutionContext().doNotCompleteOnReturn();
      return null;
    }
  }

  @Test
  void an_observation_whose_waiting_activity_never_ran_is_polled_and_completed_by_another_worker()
      throws Exception {
    try (GenerationHarness harness = GenerationHarness.withoutWorkers(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(1000));
      WorkerFactory workflows = workflowWorker(harness, "worker-w");
      // worker-a takes the waiting activity's task, then is gone before running it: the activity
      // never names itself in the ledger, and Temporal holds it as started for 30 minutes.
      TakesTheTaskAndFreezes frozen = new TakesTheTaskAndFreezes();
      WorkerFactory first = harness.newDetachedFactory();
      first.newWorker(TaskQueues.OBSERVATION).registerActivitiesImplementations(frozen);
      first.start();
      harness.client.start(request("op-never-ran"));
      assertThat(frozen.taken.await(30, TimeUnit.SECONDS)).isTrue();
      first.shutdownNow();

      WorkerFactory second =
          observationWorker(harness, "worker-b", harness.genaceClient(GenerationHarness.API_KEY));
      try {
        // Read from the ledger, not by waiting on the result, which would let the test server
        // skip ahead to the activity's timeout and retry it on worker-b.
        harness.awaitPhase("op-never-ran", Phase.DELIVERED);

        OperationResult result = harness.client.awaitResult("op-never-ran", Duration.ofMinutes(1));
        assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
        harness.replayAndRecord("op-never-ran", "observation-waiting-activity-never-ran");
        assertThat(harness.postsFor("op-never-ran")).isEqualTo(1);
        assertThat(harness.ledger.history("op-never-ran"))
            .filteredOn(t -> t.accepted() && t.event().equals("snapshot"))
            .extracting(t -> t.owner().orElse(""))
            .containsOnly("worker-b");
      } finally {
        second.shutdownNow();
        workflows.shutdownNow();
      }
    }
  }

  /**
   * Workflow code and every queue but observation: the queues are split here as no production
   * worker splits them, so this registers them one by one.
   */
  private static WorkerFactory workflowWorker(GenerationHarness harness, String workerId) {
    WorkerFactory factory = harness.newDetachedFactory();
    GenerationWorkers.Dependencies deps =
        harness.workers(workerId, harness.genaceClient(GenerationHarness.API_KEY)).dependencies();
    Worker operations = factory.newWorker(TaskQueues.OPERATIONS);
    operations.registerWorkflowImplementationTypes(GenerationWorkflowImpl.class);
    GenerationWorkers.registerOperationsActivities(
        operations, deps, new TemporalHistory(harness.temporal.getWorkflowClient()));
    GenerationWorkers.dispatchWorker(factory, deps, WorkerOptions.getDefaultInstance());
    factory.start();
    return factory;
  }

  private static WorkerFactory observationWorker(
      GenerationHarness harness, String workerId, GenaceClient genace) {
    WorkerFactory factory = harness.newDetachedFactory();
    GenerationWorkers.observationWorker(
        factory,
        harness.workers(workerId, genace).dependencies(),
        WorkerOptions.getDefaultInstance());
    factory.start();
    return factory;
  }

  /** Copies, then fails before the manifest is recorded: what a crash in between would do. */
  private static final class CrashAfterFirstCopy extends ForwardingArtifactStore {
    final AtomicInteger puts = new AtomicInteger();

    CrashAfterFirstCopy(ArtifactStore store) {
      super(store);
    }

    @Override
    public void put(String key, ArtifactContent content) {
      super.put(key, content);
      if (puts.incrementAndGet() == 1) {
        throw new IllegalStateException("worker crashed after copying " + key);
      }
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
      // The failed attempt recorded nothing; the retry recorded delivery once.
      assertThat(harness.ledger.history("op-deliver"))
          .filteredOn(t -> t.event().equals("delivered"))
          .extracting(TransitionRow::accepted)
          .containsExactly(true);
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
