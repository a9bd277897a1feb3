package com.genace.worker.support;

import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationSearchAttributes;
import com.genace.testkit.simulator.GenaceSimulator;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Temporal server (named by {@value #ADDRESS_VARIABLE}, namespace {@value #NAMESPACE}) with
 * the production workers (assembled by {@link TestWorkers}) running in this JVM against it, the
 * shared PostgreSQL ledger, the Genace simulator over HTTP and a local artifact directory.
 *
 * <p>Unlike {@link GenerationHarness} nothing here is the test server: time is real, visibility is
 * the server's own (eventually consistent) store, and updates, queries and summaries go over gRPC.
 */
public final class RealTemporalServer implements AutoCloseable {

  public static final String ADDRESS_VARIABLE = "GENACE_REAL_TEMPORAL_ADDRESS";
  public static final String CLI_VARIABLE = "GENACE_TEMPORAL_CLI";
  public static final String NAMESPACE = "default";

  private static final Map<String, IndexedValueType> SEARCH_ATTRIBUTES =
      Map.of(
          GenerationSearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
          GenerationSearchAttributes.REMOTE_JOB_ID.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
          GenerationSearchAttributes.NEEDS_REVIEW.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
          GenerationSearchAttributes.CREDITS.getName(), IndexedValueType.INDEXED_VALUE_TYPE_INT);

  public final String address;
  public final GenaceSimulator simulator;
  public final OperationsLedger ledger;
  public final WorkflowClient workflowClient;
  public final GenerationClient client;

  private final WorkflowServiceStubs service;
  private final WorkerFactory workers;

  private RealTemporalServer(String address, Path artifacts) {
    this.address = address;
    this.service =
        WorkflowServiceStubs.newConnectedServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(address).build(),
            Duration.ofSeconds(15));
    requireSearchAttributes(service);
    this.workflowClient =
        WorkflowClient.newInstance(
            service, WorkflowClientOptions.newBuilder().setNamespace(NAMESPACE).build());
    this.client = new GenerationClient(workflowClient);
    this.simulator = GenerationHarness.simulator();
    this.ledger = new OperationsLedger(TestDatabase.dataSource(), GenerationHarness.LEASE);
    this.workers = WorkerFactory.newInstance(workflowClient);
    TestWorkers.of(
            ledger,
            TestWorkers.genaceClient(
                simulator.baseUrl(), GenerationHarness.API_KEY, Duration.ofSeconds(2)),
            new LocalDirectoryArtifactStore(artifacts))
        .workerId("real-temporal-test-worker")
        .registerAll(workers);
    workers.start();
  }

  /**
   * Connects to the server named by {@value #ADDRESS_VARIABLE} and starts the workers.
   *
   * @throws IllegalStateException if the server is unreachable or lacks the search attributes
   */
  public static RealTemporalServer connect(String address, Path artifacts) {
    return new RealTemporalServer(address, artifacts);
  }

  /** The value of an environment variable, or null when it is unset or blank. */
  public static String variable(String name) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** Whether this runs in CI, where a tier that cannot run is a failure, not a skip. */
  public static boolean inCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }

  /**
   * An environment variable this tier needs: without it the test is skipped on a developer's
   * machine, and fails in CI (where a tier that silently did not run would look green).
   */
  public static String required(String variable, String what) {
    String value = RealTemporalServer.variable(variable);
    if (value == null) {
      String message =
          variable
              + " is not set: it names "
              + what
              + " for the real-temporal tier (see docs/real-temporal.md)";
      if (RealTemporalServer.inCi()) {
        Assertions.fail(message + "; CI=true expects this tier to run");
      }
      Assumptions.abort(message);
    }
    return value;
  }

  private static void requireSearchAttributes(WorkflowServiceStubs service) {
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setChannel(service.getRawChannel())
                .validateAndBuildWithDefaults());
    try {
      Map<String, IndexedValueType> registered =
          operator
              .blockingStub()
              .listSearchAttributes(
                  ListSearchAttributesRequest.newBuilder().setNamespace(NAMESPACE).build())
              .getCustomAttributesMap();
      SEARCH_ATTRIBUTES.forEach(
          (name, type) -> {
            if (registered.get(name) != type) {
              String cliType = type.name().substring("INDEXED_VALUE_TYPE_".length());
              cliType = cliType.charAt(0) + cliType.substring(1).toLowerCase(Locale.ROOT);
              throw new IllegalStateException(
                  "search attribute "
                      + name
                      + " is not registered as "
                      + cliType
                      + " on namespace "
                      + NAMESPACE
                      + " (found "
                      + registered.get(name)
                      + "): start the server with scripts/temporal-dev.sh, or run temporal"
                      + " operator search-attribute create --name "
                      + name
                      + " --type "
                      + cliType);
            }
          });
    } finally {
      operator.shutdownNow();
    }
  }

  @Override
  public void close() throws InterruptedException {
    workers.shutdown();
    workers.awaitTermination(20, TimeUnit.SECONDS);
    service.shutdown();
    service.awaitTermination(10, TimeUnit.SECONDS);
    simulator.close();
  }
}
