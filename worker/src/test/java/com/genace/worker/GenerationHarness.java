package com.genace.worker;

import com.genace.client.GenaceClient;
import com.genace.client.GenaceClientConfig;
import com.genace.client.HttpGenaceClient;
import com.genace.delivery.LocalDirectoryArtifactStore;
import com.genace.dispatch.DispatchGate;
import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.observation.PollingPolicy;
import com.genace.simulator.Faults;
import com.genace.simulator.GenaceSimulator;
import com.genace.testing.TestDatabase;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.GenerationRequest;
import com.genace.workflows.GenerationSearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Everything real for end-to-end workflow tests: the Temporal test server (time skipping), the
 * shared PostgreSQL, the Genace simulator over HTTP, a local artifact directory, and the production
 * activity implementations registered by {@link GenerationWorkers}.
 */
final class GenerationHarness implements AutoCloseable {

  static final String API_KEY = "sim-test-key";
  static final Duration LEASE = Duration.ofSeconds(3);
  static final PollingPolicy FAST_POLLING =
      new PollingPolicy(Duration.ofMillis(50), Duration.ofMillis(200), 1.5, 0.2, 5);

  final GenaceSimulator simulator;
  final TestWorkflowEnvironment temporal;
  final OperationsLedger ledger;
  final GenerationClient client;
  final Path artifacts;

  GenerationHarness(Path artifacts) {
    this(
        artifacts,
        GenaceSimulator.builder()
            .apiKey(API_KEY)
            .faults(Faults.DEFAULT.withJobDurationMs(300))
            .start(),
        API_KEY);
  }

  GenerationHarness(Path artifacts, GenaceSimulator simulator, String apiKey) {
    this.simulator = simulator;
    this.artifacts = artifacts;
    this.temporal = TestWorkflowEnvironment.newInstance();
    registerSearchAttributes(temporal);
    this.ledger = new OperationsLedger(TestDatabase.dataSource(), LEASE);
    startWorkers(temporal.getWorkerFactory(), "worker-1", genaceClient(apiKey), DispatchGate.OPEN);
    temporal.start();
    this.client = new GenerationClient(temporal.getWorkflowClient());
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
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2)));
  }

  /** Registers both queues' workers on a factory, as a worker process would. */
  void startWorkers(
      WorkerFactory factory, String workerId, GenaceClient genace, DispatchGate gate) {
    GenerationWorkers.Dependencies deps =
        new GenerationWorkers.Dependencies(
            ledger,
            genace,
            new LocalDirectoryArtifactStore(artifacts),
            workerId,
            gate,
            FAST_POLLING,
            Clock.systemUTC());
    GenerationWorkers.operationsWorker(factory, deps, WorkerOptions.getDefaultInstance());
    GenerationWorkers.dispatchWorker(factory, deps, WorkerOptions.getDefaultInstance());
  }

  static GenerationRequest request(String operationId) {
    return new GenerationRequest(operationId, "image-v1", "{\"prompt\":\"a red fox\"}");
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
