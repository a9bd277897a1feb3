package com.genace.worker;

import com.genace.allowance.SpendingAllowance;
import com.genace.client.GenaceClient;
import com.genace.client.GenaceClientConfig;
import com.genace.client.HttpGenaceClient;
import com.genace.controls.DispatchCircuit;
import com.genace.controls.WorkerControls;
import com.genace.delivery.ArtifactStore;
import com.genace.delivery.LocalDirectoryArtifactStore;
import com.genace.dispatch.DispatchGate;
import com.genace.dispatch.DispatchListener;
import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.model.Phase;
import com.genace.observation.PollingPolicy;
import com.genace.review.ReviewSettings;
import com.genace.simulator.Faults;
import com.genace.simulator.GenaceSimulator;
import com.genace.stats.ActivityStats;
import com.genace.testing.TestDatabase;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.GenerationRequest;
import com.genace.workflows.GenerationSearchAttributes;
import com.genace.workflows.GenerationWorkflow;
import com.genace.workflows.GenerationWorkflowImpl;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Everything real for end-to-end workflow tests: the Temporal test server (time skipping), the
 * shared PostgreSQL, the Genace simulator over HTTP, a local artifact directory, and the production
 * activity implementations registered by {@link GenerationWorkers}.
 */
final class GenerationHarness implements AutoCloseable {

  static final String API_KEY = "sim-test-key";
  static final Duration LEASE = Duration.ofSeconds(3);

  /** Reviews wait for the operator a test plays; the search is repeated for one second. */
  static final ReviewSettings OPERATOR_REVIEWS =
      new ReviewSettings(false, Duration.ofSeconds(1), Duration.ofMillis(100));

  static final PollingPolicy FAST_POLLING =
      new PollingPolicy(Duration.ofMillis(50), Duration.ofMillis(200), 1.5, 0.2, 5);

  final GenaceSimulator simulator;
  final TestWorkflowEnvironment temporal;
  final OperationsLedger ledger;
  final GenerationClient client;
  final Path artifacts;

  /** Why dispatch is closed on the test's workers, or null while it is open. */
  final AtomicReference<String> dispatchClosed = new AtomicReference<>();

  /** How many dispatch attempts the closed gate turned away. */
  final AtomicInteger turnedAway = new AtomicInteger();

  /** While true, the spending allowance grants nothing. */
  final AtomicBoolean allowanceExhausted = new AtomicBoolean();

  /** Reservations the exhausted allowance turned away. */
  final AtomicInteger allowanceRefusals = new AtomicInteger();

  private final ArtifactStore store;
  private final Duration readTimeout;
  private final ReviewSettings review;

  GenerationHarness(Path artifacts) {
    this(artifacts, simulator(), API_KEY, null, Duration.ofSeconds(2));
  }

  /** With these review settings, e.g. reviews that settle themselves. */
  GenerationHarness(Path artifacts, ReviewSettings review) {
    this(artifacts, simulator(), API_KEY, null, Duration.ofSeconds(2), true, review);
  }

  /**
   * @param store the artifact store, or null for a local directory under {@code artifacts}
   */
  GenerationHarness(
      Path artifacts,
      GenaceSimulator simulator,
      String apiKey,
      ArtifactStore store,
      Duration readTimeout) {
    this(artifacts, simulator, apiKey, store, readTimeout, true, OPERATOR_REVIEWS);
  }

  /**
   * @param workersOnTestFactory false to leave both queues to workers the test starts itself (see
   *     {@link #startDetachedWorkers})
   */
  GenerationHarness(
      Path artifacts,
      GenaceSimulator simulator,
      String apiKey,
      ArtifactStore store,
      Duration readTimeout,
      boolean workersOnTestFactory) {
    this(artifacts, simulator, apiKey, store, readTimeout, workersOnTestFactory, OPERATOR_REVIEWS);
  }

  GenerationHarness(
      Path artifacts,
      GenaceSimulator simulator,
      String apiKey,
      ArtifactStore store,
      Duration readTimeout,
      boolean workersOnTestFactory,
      ReviewSettings review) {
    this.review = review;
    this.simulator = simulator;
    this.artifacts = artifacts;
    this.store = store == null ? new LocalDirectoryArtifactStore(artifacts) : store;
    this.readTimeout = readTimeout;
    this.temporal = TestWorkflowEnvironment.newInstance();
    registerSearchAttributes(temporal);
    this.ledger = new OperationsLedger(TestDatabase.dataSource(), LEASE);
    GenerationWorkers.Dependencies deps =
        dependencies("worker-1", genaceClient(apiKey), this::closedReason);
    if (workersOnTestFactory) {
      GenerationWorkers.operationsWorker(
          temporal.getWorkerFactory(), deps, WorkerOptions.getDefaultInstance());
      GenerationWorkers.dispatchWorker(
          temporal.getWorkerFactory(), deps, WorkerOptions.getDefaultInstance());
    }
    temporal.start();
    this.client = new GenerationClient(temporal.getWorkflowClient());
  }

  /** A simulator whose jobs take 300 ms and that accepts {@link #API_KEY}. */
  static GenaceSimulator simulator() {
    return GenaceSimulator.builder()
        .apiKey(API_KEY)
        .faults(Faults.DEFAULT.withJobDurationMs(300))
        .start();
  }

  static void registerSearchAttributes(TestWorkflowEnvironment temporal) {
    temporal.registerSearchAttribute(
        GenerationSearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    temporal.registerSearchAttribute(
        GenerationSearchAttributes.REMOTE_JOB_ID.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    temporal.registerSearchAttribute(
        GenerationSearchAttributes.NEEDS_REVIEW.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_BOOL);
  }

  GenaceClient genaceClient(String apiKey) {
    return new HttpGenaceClient(
        GenaceClientConfig.of(simulator.baseUrl(), apiKey)
            .withTimeouts(Duration.ofSeconds(2), readTimeout));
  }

  GenerationWorkers.Dependencies dependencies(
      String workerId, GenaceClient genace, DispatchGate gate) {
    return new GenerationWorkers.Dependencies(
        ledger,
        genace,
        store,
        workerId,
        gate,
        FAST_POLLING,
        Clock.systemUTC(),
        DispatchListener.NONE,
        new SwitchableAllowance(),
        new DispatchCircuit(new WorkerControls(TestDatabase.dataSource()), workerId),
        review,
        ActivityStats.NONE);
  }

  private Optional<String> closedReason() {
    Optional<String> closed = Optional.ofNullable(dispatchClosed.get());
    if (closed.isPresent()) {
      turnedAway.incrementAndGet();
    }
    return closed;
  }

  /** Grants everything unless the test exhausted it. */
  private final class SwitchableAllowance implements SpendingAllowance {
    @Override
    public Reservation reserve(String operationId, String account, String model) {
      if (allowanceExhausted.get()) {
        allowanceRefusals.incrementAndGet();
        return new Reservation(false, "credits per window exhausted");
      }
      return new Reservation(true, "granted");
    }

    @Override
    public void settle(String operationId, boolean spent) {}
  }

  /**
   * Starts both queues' workers in a factory of their own, as a second worker process would; the
   * test server does not hold its clock for activities running there.
   */
  WorkerFactory startDetachedWorkers(String workerId, boolean operations, boolean dispatch) {
    // No workflow cache, hence no sticky queue: the test server never times out a sticky queue
    // whose worker went away, where a real server falls back to the normal queue after 5 s.
    WorkerFactory factory =
        WorkerFactory.newInstance(
            io.temporal.client.WorkflowClient.newInstance(
                temporal.getWorkflowServiceStubs(), temporal.getWorkflowClient().getOptions()),
            WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0).build());
    GenerationWorkers.Dependencies deps =
        dependencies(workerId, genaceClient(API_KEY), DispatchGate.OPEN);
    if (operations) {
      GenerationWorkers.operationsWorker(factory, deps, WorkerOptions.getDefaultInstance());
    }
    if (dispatch) {
      GenerationWorkers.dispatchWorker(factory, deps, WorkerOptions.getDefaultInstance());
    }
    factory.start();
    return factory;
  }

  static GenerationRequest request(String operationId) {
    return new GenerationRequest(operationId, "image-v1", "{\"prompt\":\"a red fox\"}");
  }

  /** Waits (in real time, so the test server does not skip ahead) for the ledger to show it. */
  OperationRow awaitPhase(String operationId, Phase phase) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ledger.find(operationId).map(r -> r.phase() == phase).orElse(false));
    return ledger.get(operationId);
  }

  /**
   * Replays the operation's history against the current workflow code (a non-deterministic change
   * fails here), and saves it as a regression fixture when {@code genace.recordHistories} names a
   * directory.
   */
  void replayAndRecord(String operationId, String fixtureName) throws Exception {
    WorkflowExecutionHistory history =
        temporal.getWorkflowClient().fetchHistory(GenerationWorkflow.workflowId(operationId));
    WorkflowReplayer.replayWorkflowExecution(history, GenerationWorkflowImpl.class);
    String directory = System.getProperty("genace.recordHistories");
    if (directory != null) {
      Files.writeString(Path.of(directory, fixtureName + ".json"), history.toJson(true));
    }
  }

  /** Waits (in real time) until the ledger records this outcome of a dispatch attempt. */
  void awaitDispatchOutcome(String operationId, String outcome) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                ledger
                    .find(operationId)
                    .flatMap(OperationRow::dispatchOutcome)
                    .map(outcome::equals)
                    .orElse(false));
  }

  OperationRow row(String operationId) {
    return ledger.get(operationId);
  }

  long postsFor(String operationId) {
    return simulator.stats().postsFor(operationId);
  }

  @Override
  public void close() {
    temporal.close();
    simulator.close();
  }
}
