package com.genace.ops.support;

import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.connection.TemporalSettings;
import com.genace.client.model.Phase;
import com.genace.ops.temporal.LocalTemporalServer;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.support.TestWorkers;
import com.genace.worker.temporal.TemporalConnection;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * What {@code ./genace dev} and {@code ./genace worker} give a user, for commands under test: the
 * Temporal test server on a free loopback port (so commands connect through TEMPORAL_ADDRESS), the
 * simulator, the shared test database, and both queues' workers with the production activities
 * (assembled by {@link TestWorkers}, as the worker module's harnesses assemble them).
 */
public final class TestStack implements AutoCloseable {

  public static final String API_KEY = "ops-test-key";

  /** The simulator's faults between tests: renders take 300 ms, nothing fails. */
  public static final Faults FAULTS = Faults.DEFAULT.withJobDurationMs(300);

  public final String temporalAddress;
  public final GenaceSimulator simulator;
  public final OperationsLedger ledger;

  private final LocalTemporalServer ownServer;
  private final TemporalConnection connection;
  private final WorkerFactory workers;

  public TestStack(Path artifacts) {
    this(LocalTemporalServer.start(0), artifacts);
  }

  private TestStack(LocalTemporalServer server, Path artifacts) {
    this(server, server.address(), artifacts);
  }

  /** Workers for a Temporal server started elsewhere (for example by {@code genace dev}). */
  public TestStack(String temporalAddress, Path artifacts) {
    this(null, temporalAddress, artifacts);
  }

  private TestStack(LocalTemporalServer ownServer, String temporalAddress, Path artifacts) {
    this.ownServer = ownServer;
    this.temporalAddress = temporalAddress;
    this.simulator = GenaceSimulator.builder().apiKey(API_KEY).faults(FAULTS).start();
    this.ledger = new OperationsLedger(TestDatabase.dataSource());
    this.connection = TemporalConnection.open(TemporalSettings.local(temporalAddress));
    this.workers = WorkerFactory.newInstance(connection.workflowClient());
    // Reviews here wait for the operator the tests play (the TestWorkers default).
    Duration readTimeout = Duration.ofSeconds(5);
    TestWorkers.of(
            ledger,
            TestWorkers.genaceClient(simulator.baseUrl(), API_KEY, readTimeout),
            new LocalDirectoryArtifactStore(artifacts))
        .workerId("ops-test-worker")
        .sendWindow(new SendWindow(readTimeout, TestWorkers.RECORDING_MARGIN))
        .registerAll(workers);
    workers.start();
  }

  /** The environment a second terminal would have: Temporal and the database. */
  public Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporalAddress);
    env.put("DATABASE_URL", TestDatabase.databaseUrlValue());
    return env;
  }

  public OperationRow awaitPhase(String operationId, Phase phase) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> ledger.find(operationId).map(r -> r.phase() == phase).orElse(false));
    return ledger.get(operationId);
  }

  /** Waits until the workflow itself (not only the ledger) shows the phase. */
  public void awaitWorkflowPhase(String operationId, Phase phase) {
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
