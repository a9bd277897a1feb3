package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.AccountSettings;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.TaskQueues;
import com.genace.client.connection.TemporalSettings;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.RealTemporalServer;
import com.genace.worker.support.TestEnvironment;
import com.genace.worker.temporal.FairnessWeights;
import com.genace.worker.temporal.Saturation;
import com.genace.worker.temporal.SearchAttributes;
import com.genace.worker.temporal.TemporalConnection;
import com.genace.worker.temporal.TemporalTarget;
import com.google.protobuf.util.Durations;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.RegisterNamespaceRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only a real Temporal server answers: a namespace that lacks the search attributes (or does
 * not exist) stops a worker's start with the command that fixes it, the task-queue backlog and the
 * count of running operations that {@code /status} shows, and the accounts' fairness weights a
 * worker writes to the task queues when it starts. Each test uses a namespace of its own,
 * registered here, so that no other worker drains its queues.
 *
 * <p>Tagged {@code real-temporal}, like {@link RealTemporalServerTest}.
 */
@Tag("real-temporal")
@ExtendWith(DatabaseExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RealTemporalReadinessTest {

  @TempDir Path artifacts;
  private String address;
  private TemporalConnection connection;
  private GenaceSimulator simulator;
  private WorkerProcess process;

  @BeforeEach
  void connect() {
    address = RealTemporalServer.required(RealTemporalServer.ADDRESS_VARIABLE, "the server");
    // The first connection of a cold JVM on a loaded machine can outlast one health check.
    connection =
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> TemporalConnection.open(TemporalSettings.local(address)), c -> true);
    simulator = GenerationHarness.simulator();
  }

  @AfterEach
  void close() {
    if (process != null) {
      process.close();
    }
    simulator.close();
    connection.close();
  }

  /** A fresh namespace, usable once the server's namespace cache has it. */
  private String newNamespace() {
    String namespace = "genace-rt-" + UUID.randomUUID().toString().substring(0, 8);
    connection
        .stubs()
        .blockingStub()
        .registerNamespace(
            RegisterNamespaceRequest.newBuilder()
                .setNamespace(namespace)
                .setWorkflowExecutionRetentionPeriod(Durations.fromDays(1))
                .build());
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                connection
                    .stubs()
                    .blockingStub()
                    .describeNamespace(
                        DescribeNamespaceRequest.newBuilder().setNamespace(namespace).build())
                    .hasNamespaceInfo());
    return namespace;
  }

  private WorkerProcess worker(String namespace) {
    Map<String, String> env = TestEnvironment.worker(simulator.baseUrl(), artifacts);
    env.put("TEMPORAL_ADDRESS", address);
    env.put("TEMPORAL_NAMESPACE", namespace);
    WorkerConfig config = WorkerConfig.fromEnvironment(env);
    process = new WorkerProcess(config, TemporalTarget.of(config.temporal()), Clock.systemUTC());
    return process;
  }

  @Test
  void a_namespace_without_the_search_attributes_stops_the_start_with_the_command_to_create_them() {
    String namespace = newNamespace();

    assertThatThrownBy(worker(namespace)::start)
        .isInstanceOf(StartupFailure.class)
        .hasMessage(
            "namespace "
                + namespace
                + " on "
                + address
                + " lacks the search attributes GenacePhase, GenaceRemoteJobId,"
                + " GenaceNeedsReview, GenaceCredits; create them with: temporal operator"
                + " search-attribute create --namespace "
                + namespace
                + " --name GenacePhase --type Keyword --name GenaceRemoteJobId --type Keyword"
                + " --name GenaceNeedsReview --type Bool --name GenaceCredits --type Int");
  }

  @Test
  void a_namespace_that_does_not_exist_stops_the_start_naming_the_variable() {
    assertThatThrownBy(worker("genace-no-such-namespace")::start)
        .isInstanceOf(StartupFailure.class)
        .hasMessage(
            "TEMPORAL_NAMESPACE: namespace genace-no-such-namespace does not exist on "
                + address
                + "; create it with: temporal operator namespace create --namespace"
                + " genace-no-such-namespace");
  }

  @Test
  void work_no_worker_picked_up_shows_as_backlog_and_as_operations_not_registered() {
    String namespace = newNamespace();
    SearchAttributes.register(connection.stubs(), namespace);
    GenerationClient client =
        new GenerationClient(
            WorkflowClient.newInstance(
                connection.stubs(),
                WorkflowClientOptions.newBuilder().setNamespace(namespace).build()));
    for (int i = 0; i < 3; i++) {
      client.start(new GenerationRequest("waiting-" + i, "image-v1", "{\"prompt\":\"fox\"}"));
    }
    Saturation saturation =
        new Saturation(
            connection.stubs(),
            namespace,
            List.of(TaskQueues.OPERATIONS),
            List.of(TaskQueues.OPERATIONS, TaskQueues.DISPATCH));

    Saturation.Reading reading =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                saturation::read,
                r ->
                    r.runningWorkflows().orElse(0L) == 3
                        && r.backlog().orElse(List.of()).stream()
                            .anyMatch(b -> b.type().equals("workflow") && b.tasks() == 3));

    assertThat(reading.backlogUnavailable()).isEmpty();
    assertThat(reading.backlog().orElseThrow())
        .extracting(Saturation.Backlog::taskQueue, Saturation.Backlog::type)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(TaskQueues.OPERATIONS, "workflow"),
            org.assertj.core.groups.Tuple.tuple(TaskQueues.OPERATIONS, "activity"),
            org.assertj.core.groups.Tuple.tuple(TaskQueues.DISPATCH, "activity"));
  }

  @Test
  void a_starting_worker_writes_the_ledger_s_fairness_weights_to_every_task_queue()
      throws Exception {
    String namespace = newNamespace();
    SearchAttributes.register(connection.stubs(), namespace);
    AccountSettings accounts = new OperationsLedger(TestDatabase.dataSource()).accounts();
    accounts.setWeight("shop", OptionalDouble.of(3), "test");
    accounts.setWeight("cheap", OptionalDouble.of(0.5), "test");
    accounts.setCap("plain", OptionalInt.of(4), "test"); // settings, but the default weight
    FairnessWeights weights = new FairnessWeights(connection.stubs(), namespace, "test");
    // A weight Temporal holds that the ledger no longer does: the worker removes it.
    weights.apply("plain", OptionalDouble.of(7));

    WorkerProcess worker = worker(namespace);
    worker.start();

    assertThat(worker.state().fairnessWeights()).isEqualTo("applied: 3 account(s) with settings");
    for (FairnessWeights.Queue queue : FairnessWeights.QUEUES) {
      assertThat(weights.read(queue))
          .as(queue.toString())
          .isEqualTo(Map.of("shop", 3f, "cheap", 0.5f));
    }

    // What `ops accounts set cheap --default-weight` writes after the ledger.
    weights.apply("cheap", OptionalDouble.empty());
    for (FairnessWeights.Queue queue : FairnessWeights.QUEUES) {
      assertThat(weights.read(queue)).as(queue.toString()).isEqualTo(Map.of("shop", 3f));
    }
  }
}
