package com.genace.ops;

import com.genace.client.GenaceClientConfig;
import com.genace.client.HttpGenaceClient;
import com.genace.delivery.LocalDirectoryArtifactStore;
import com.genace.dispatch.DispatchGate;
import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.model.Phase;
import com.genace.observation.PollingPolicy;
import com.genace.ops.temporal.LocalTemporalServer;
import com.genace.review.ReviewSettings;
import com.genace.simulator.Faults;
import com.genace.simulator.GenaceSimulator;
import com.genace.testing.TestDatabase;
import com.genace.worker.GenerationWorkers;
import com.genace.worker.temporal.TemporalConnection;
import com.genace.worker.temporal.TemporalSettings;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * What {@code ./genace dev} and {@code ./genace worker} give a user, for commands under test: the
 * Temporal test server on a free loopback port (so commands connect through TEMPORAL_ADDRESS), the
 * simulator, the shared test database, and both queues' workers with the production activities.
 */
final class TestStack implements AutoCloseable {

  static final String API_KEY = "ops-test-key";

  final String temporalAddress;
  final GenaceSimulator simulator;
  final OperationsLedger ledger;

  private final LocalTemporalServer ownServer;
  private final TemporalConnection connection;
  private final WorkerFactory workers;

  TestStack(Path artifacts) {
    this(LocalTemporalServer.start(0), artifacts);
  }

  private TestStack(LocalTemporalServer server, Path artifacts) {
    this(server, server.address(), artifacts);
  }

  /** Workers for a Temporal server started elsewhere (for example by {@code genace dev}). */
  TestStack(String temporalAddress, Path artifacts) {
    this(null, temporalAddress, artifacts);
  }

  private TestStack(LocalTemporalServer ownServer, String temporalAddress, Path artifacts) {
    this.ownServer = ownServer;
    this.temporalAddress = temporalAddress;
    this.simulator =
        GenaceSimulator.builder()
            .apiKey(API_KEY)
            .faults(Faults.DEFAULT.withJobDurationMs(300))
            .start();
    this.ledger = new OperationsLedger(TestDatabase.dataSource());
    this.connection = TemporalConnection.open(TemporalSettings.local(temporalAddress));
    this.workers = WorkerFactory.newInstance(connection.workflowClient());
    GenerationWorkers.Dependencies deps =
        new GenerationWorkers.Dependencies(
                ledger,
                new HttpGenaceClient(
                    GenaceClientConfig.of(simulator.baseUrl(), API_KEY)
                        .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5))),
                new LocalDirectoryArtifactStore(artifacts),
                "ops-test-worker",
                DispatchGate.OPEN,
                new PollingPolicy(Duration.ofMillis(50), Duration.ofMillis(200), 1.5, 0.2, 5),
                Clock.systemUTC())
            // Reviews here wait for the operator the tests play.
            .withReview(new ReviewSettings(false, Duration.ofSeconds(1), Duration.ofMillis(100)));
    GenerationWorkers.operationsWorker(workers, deps, WorkerOptions.getDefaultInstance());
    GenerationWorkers.dispatchWorker(workers, deps, WorkerOptions.getDefaultInstance());
    workers.start();
  }

  /** The environment a second terminal would have: Temporal and the database. */
  Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporalAddress);
    env.put("DATABASE_URL", databaseUrl());
    return env;
  }

  /** The shared test database as a DATABASE_URL value. */
  static String databaseUrl() {
    String configured = System.getenv(TestDatabase.URL_VARIABLE);
    if (configured != null && !configured.isBlank()) {
      return configured;
    }
    return TestDatabase.url().jdbcUrl()
        + TestDatabase.url().user().map(user -> "?user=" + user).orElse("");
  }

  OperationRow awaitPhase(String operationId, Phase phase) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> ledger.find(operationId).map(r -> r.phase() == phase).orElse(false));
    return ledger.get(operationId);
  }

  /** Waits until the workflow itself (not only the ledger) shows the phase. */
  void awaitWorkflowPhase(String operationId, Phase phase) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              var view = connection.generationClient().describe(operationId);
              // A review takes decisions once its evidence is gathered.
              return view.phase() == phase && (phase != Phase.IN_REVIEW || view.awaitsOperator());
            });
  }

  @Override
  public void close() {
    workers.shutdownNow();
    workers.awaitTermination(5, TimeUnit.SECONDS);
    connection.close();
    if (ownServer != null) {
      ownServer.close();
    }
    simulator.close();
  }
}
