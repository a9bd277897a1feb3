package com.genace.worker;

import com.genace.client.GenaceClientConfig;
import com.genace.client.HttpGenaceClient;
import com.genace.delivery.LocalDirectoryArtifactStore;
import com.genace.dispatch.DispatchGate;
import com.genace.ledger.OperationsLedger;
import com.genace.simulator.GenaceSimulator;
import com.genace.testing.TestDatabase;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.GenerationSearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Temporal server (named by {@value #ADDRESS_VARIABLE}, namespace {@value #NAMESPACE}) with
 * the production workers of {@link GenerationWorkers} running in this JVM against it, the shared
 * PostgreSQL ledger, the Genace simulator over HTTP and a local artifact directory.
 *
 * <p>Unlike {@link GenerationHarness} nothing here is the test server: time is real, visibility is
 * the server's own (eventually consistent) store, and updates, queries and summaries go over gRPC.
 */
final class RealTemporalServer implements AutoCloseable {

  static final String ADDRESS_VARIABLE = "GENACE_REAL_TEMPORAL_ADDRESS";
  static final String CLI_VARIABLE = "GENACE_TEMPORAL_CLI";
  static final String NAMESPACE = "default";

  private static final Map<String, IndexedValueType> SEARCH_ATTRIBUTES =
      Map.of(
          GenerationSearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
          GenerationSearchAttributes.REMOTE_JOB_ID.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
          GenerationSearchAttributes.NEEDS_REVIEW.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_BOOL);

  final String address;
  final GenaceSimulator simulator;
  final OperationsLedger ledger;
  final WorkflowClient workflowClient;
  final GenerationClient client;

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
    GenerationWorkers.Dependencies deps =
        new GenerationWorkers.Dependencies(
                ledger,
                new HttpGenaceClient(
                    GenaceClientConfig.of(simulator.baseUrl(), GenerationHarness.API_KEY)
                        .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2))),
                new LocalDirectoryArtifactStore(artifacts),
                "real-temporal-test-worker",
                DispatchGate.OPEN,
                GenerationHarness.FAST_POLLING,
                Clock.systemUTC())
            .withReview(GenerationHarness.OPERATOR_REVIEWS);
    this.workers = WorkerFactory.newInstance(workflowClient);
    GenerationWorkers.operationsWorker(workers, deps, WorkerOptions.getDefaultInstance());
    GenerationWorkers.dispatchWorker(workers, deps, WorkerOptions.getDefaultInstance());
    workers.start();
  }

  /**
   * Connects to the server named by {@value #ADDRESS_VARIABLE} and starts the workers.
   *
   * @throws IllegalStateException if the server is unreachable or lacks the search attributes
   */
  static RealTemporalServer connect(String address, Path artifacts) {
    return new RealTemporalServer(address, artifacts);
  }

  /** The value of an environment variable, or null when it is unset or blank. */
  static String variable(String name) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** Whether this runs in CI, where a tier that cannot run is a failure, not a skip. */
  static boolean inCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
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
