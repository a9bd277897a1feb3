package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.controls.WorkerControls;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.health.Readiness;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.TcpProxy;
import com.genace.worker.support.TestEnvironment;
import com.genace.worker.temporal.TemporalTarget;
import com.genace.worker.temporal.WorkflowTaskFailures;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker process from the outside: its endpoints, pause, database outage, drain, capacity and
 * an upstream timeout (the acceptance tests of worker readiness and drain), on the Temporal test
 * server, a real PostgreSQL and the simulator.
 */
@ExtendWith(DatabaseExtension.class)
class WorkerProcessTest {

  static final String API_KEY = "sk-live-very-secret";
  static final String TOKEN = "status-token-123";

  @TempDir Path artifacts;
  private final HttpClient http = HttpClient.newHttpClient();
  private TestWorkflowEnvironment temporal;
  private GenaceSimulator simulator;
  private WorkerProcess process;
  private GenerationClient client;
  private OperationsLedger ledger;

  @BeforeEach
  void setUp(DataSource db) {
    temporal = TestWorkflowEnvironment.newInstance();
    GenerationHarness.registerSearchAttributes(temporal);
    simulator = GenerationHarness.simulator();
    client = new GenerationClient(temporal.getWorkflowClient());
    ledger = new OperationsLedger(db);
  }

  @AfterEach
  void tearDown() {
    if (process != null) {
      process.close();
    }
    temporal.close();
    simulator.close();
  }

  private Map<String, String> environment() {
    Map<String, String> env = TestEnvironment.worker(simulator.baseUrl(), artifacts);
    env.put("GENACE_WORKER_ID", "worker-under-test");
    env.put("GENACE_STATUS_TOKEN", TOKEN);
    env.put("GENACE_DRAIN_SECONDS", "1");
    env.put("GENACE_LEASE_SECONDS", "10");
    env.put("GENACE_READ_TIMEOUT_SECONDS", "5");
    return env;
  }

  /** The shared test database, reached through {@code port} on this machine (a proxy's). */
  private static String databaseUrl(int port) {
    return TestDatabase.databaseUrlValue().replaceFirst("//[^/]+/", "//127.0.0.1:" + port + "/");
  }

  private WorkerProcess start(Map<String, String> env) throws Exception {
    process =
        new WorkerProcess(
            WorkerConfig.fromEnvironment(env),
            TemporalTarget.sameChannelAs(temporal.getWorkflowServiceStubs(), "in-process"),
            Clock.systemUTC());
    process.start();
    return process;
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    InetSocketAddress address = process.statusServer().address();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + address.getPort() + path))
            .timeout(Duration.ofSeconds(5));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String token) throws Exception {
    InetSocketAddress address = process.statusServer().address();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + address.getPort() + path))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private Readiness readiness() {
    return process.state().readiness();
  }

  @Test
  void a_workflow_task_that_keeps_failing_is_counted_and_its_cause_can_be_read() throws Exception {
    start(environment());
    GenerationHarness.startWorkflowThatCannotRun(temporal.getWorkflowClient(), "op-cannot-run");
    String workflowId = GenerationWorkflow.workflowId("op-cannot-run");

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(get("/metrics", TOKEN).body())
                    .containsPattern(
                        "(?m)^temporal_workflow_task_execution_failed_total\\{.*workflow_type=\"GenerationWorkflow\".*\\} [1-9]"));
    assertThat(
            WorkflowTaskFailures.latest(
                temporal.getWorkflowServiceStubs(), temporal.getNamespace(), workflowId))
        .hasValueSatisfying(why -> assertThat(why).contains("GenerationRequest"));
    assertThat(
            WorkflowTaskFailures.latest(
                temporal.getWorkflowServiceStubs(),
                temporal.getNamespace(),
                client.start(GenerationHarness.request("op-runs")).workflowId()))
        .isEmpty();
  }

  @Test
  void probes_answer_from_memory_and_the_status_document_is_protected_and_free_of_secrets()
      throws Exception {
    Map<String, String> env = environment();
    env.put("GENACE_API_KEY", GenerationHarness.API_KEY);
    start(env);

    assertThat(get("/livez", null).statusCode()).isEqualTo(200);
    assertThat(get("/startupz", null).statusCode()).isEqualTo(200);
    assertThat(get("/readyz", null).statusCode()).isEqualTo(200);
    assertThat(get("/status", null).statusCode()).isEqualTo(401);
    assertThat(get("/status", "wrong").statusCode()).isEqualTo(401);
    assertThat(get("/metrics", null).statusCode())
        .as("the scrape names accounts, models and spend: behind the token too")
        .isEqualTo(401);
    assertThat(get("/metrics", "wrong").statusCode()).isEqualTo(401);

    HttpResponse<String> status = get("/status", TOKEN);
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(status.body())
        .contains("\"process\":\"alive\"")
        .contains("\"accepting_dispatch\":true")
        .contains("\"accepting_observation\":true")
        .contains("\"reason\":\"ready\"")
        .contains("\"active_operations\":0")
        .contains("\"worker_id\":\"worker-under-test\"")
        .contains("\"build\":{\"version\":\"" + BuildInfo.current().version() + "\"")
        .doesNotContain(GenerationHarness.API_KEY)
        .doesNotContain(TOKEN);
    await()
        .untilAsserted(
            () ->
                assertThat(get("/metrics", TOKEN).body())
                    .contains("genace_operations{phase=\"pending\",}")
                    .contains("genace_accepting_dispatch"));
    assertThat(simulator.stats().postsTotal()).as("probes never create renders").isZero();
  }

  @Test
  void a_fleet_pause_stops_dispatch_polling_until_resumed_while_observation_stays_ready()
      throws Exception {
    start(environment());
    WorkerControls controls = new WorkerControls(TestDatabase.dataSource());

    controls.pauseDispatch("alice", "provider incident");
    await().until(() -> !readiness().acceptingDispatch());
    assertThat(readiness()).isEqualTo(new Readiness(false, true, "dispatch_paused"));
    assertThat(get("/readyz", null).statusCode()).isEqualTo(200);
    assertThat(get("/status", TOKEN).body()).contains("provider incident");

    client.start(new GenerationRequest("op-paused", "image-v1", "{\"prompt\":\"fox\"}"));
    await().until(() -> ledger.find("op-paused").isPresent());
    Thread.sleep(3000); // long enough for a POST to have happened, were dispatch polled
    assertThat(simulator.stats().postsFor("op-paused")).isZero();
    assertThat(ledger.get("op-paused").phase()).isEqualTo(Phase.PENDING);
    assertThat(process.dispatchPollingSuspended()).isTrue();
    // A task poll already waiting on the server when polling was suspended may still bring a task;
    // the dispatch gate stops its POST and records why.
    assertThat(ledger.get("op-paused").dispatchOutcome())
        .isIn(java.util.Optional.empty(), java.util.Optional.of("paused"));

    controls.resumeDispatch("alice", "over");
    assertThat(client.awaitResult("op-paused", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.DELIVERED);
    assertThat(simulator.stats().postsFor("op-paused")).isEqualTo(1);
    assertThat(get("/metrics", TOKEN).body())
        .contains("genace_post_outcomes_total{outcome=\"accepted\",} 1.0")
        .contains("genace_polls_total{result=\"succeeded\",} 1.0")
        // No GENACE_MODEL_COSTS: 1 credit a render, its model counted as other.
        .contains("genace_credits_committed_total{account=\"default\",model=\"other\",} 1.0");
    assertThat(ledger.get("op-paused").credits()).contains(1L);
  }

  @Test
  void the_admin_endpoint_pauses_this_worker_only_with_the_token() throws Exception {
    start(environment());

    assertThat(post("/admin/pause-dispatch?reason=deploy", null).statusCode()).isEqualTo(401);
    assertThat(readiness().acceptingDispatch()).isTrue();
    assertThat(post("/admin/pause-dispatch?reason=deploy", TOKEN).statusCode()).isEqualTo(200);
    assertThat(readiness()).isEqualTo(new Readiness(false, true, "dispatch_paused"));
    assertThat(new WorkerControls(TestDatabase.dataSource()).dispatchPause()).isEmpty();
    assertThat(post("/admin/resume-dispatch", TOKEN).statusCode()).isEqualTo(200);
    assertThat(readiness().acceptingDispatch()).isTrue();
  }

  @Test
  void a_database_outage_makes_the_worker_unready_but_never_kills_liveness() throws Exception {
    String jdbc = TestDatabase.url().jdbcUrl();
    int port = URI.create(jdbc.substring("jdbc:".length())).getPort();
    try (TcpProxy proxy = new TcpProxy(new InetSocketAddress("127.0.0.1", port))) {
      Map<String, String> env = environment();
      env.put("DATABASE_URL", databaseUrl(proxy.port()));
      start(env);
      assertThat(readiness().acceptingDispatch()).isTrue();

      proxy.cut();
      await().atMost(Duration.ofSeconds(45)).until(() -> !readiness().acceptingObservation());

      assertThat(readiness()).isEqualTo(new Readiness(false, false, "ledger_unavailable"));
      assertThat(get("/readyz", null).statusCode()).isEqualTo(503);
      assertThat(get("/livez", null).statusCode()).isEqualTo(200);
      assertThat(get("/status", TOKEN).body()).contains("\"ok\":false");

      proxy.restore();
      await().atMost(Duration.ofSeconds(45)).until(() -> readiness().acceptingDispatch());
      assertThat(get("/readyz", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void exhausted_dispatch_capacity_makes_dispatch_unready_while_observation_stays_ready()
      throws Exception {
    Map<String, String> env = environment();
    env.put("GENACE_MAX_DISPATCHES", "1");
    start(env);
    simulator.setFaults(simulator.faults().withLatencyMs(3000));

    client.start(new GenerationRequest("op-slow", "image-v1", "{\"prompt\":\"fox\"}"));
    await().until(() -> process.state().activeDispatches().get() == 1);

    assertThat(readiness()).isEqualTo(new Readiness(false, true, "capacity_exhausted"));
    assertThat(get("/readyz", null).statusCode()).isEqualTo(200);
    simulator.setFaults(simulator.faults().withLatencyMs(0));
    assertThat(client.awaitResult("op-slow", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.DELIVERED);
  }

  @Test
  void operations_over_the_allowance_wait_and_then_proceed_without_failing() throws Exception {
    Map<String, String> env = environment();
    env.put("GENACE_ALLOWANCE_CREDITS", "2");
    env.put("GENACE_ALLOWANCE_WINDOW_SECONDS", "6");
    start(env);
    for (String id : java.util.List.of("op-a", "op-b", "op-c")) {
      client.start(new GenerationRequest(id, "image-v1", "{\"prompt\":\"fox\"}"));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> simulator.stats().postsTotal() == 2);
    String waiting =
        java.util.stream.Stream.of("op-a", "op-b", "op-c")
            .filter(id -> simulator.stats().postsFor(id) == 0)
            .findFirst()
            .orElseThrow();
    assertThat(ledger.get(waiting).phase()).isEqualTo(Phase.PENDING);
    await()
        .untilAsserted(
            () ->
                assertThat(get("/status", TOKEN).body()).contains("\"credits_used_in_window\":2"));

    for (String id : java.util.List.of("op-a", "op-b", "op-c")) {
      assertThat(client.awaitResult(id, Duration.ofMinutes(1)).phase()).isEqualTo(Phase.DELIVERED);
    }
    assertThat(simulator.stats().postsTotal()).isEqualTo(3);
    assertThat(ledger.get(waiting).reviewReason()).isEmpty();
  }

  @Test
  void an_upstream_read_timeout_touches_neither_liveness_nor_readiness() throws Exception {
    Map<String, String> env = environment();
    env.put("GENACE_READ_TIMEOUT_SECONDS", "1");
    start(env);
    simulator.setFaults(simulator.faults().withLatencyMs(2500));

    client.start(new GenerationRequest("op-timeout", "image-v1", "{\"prompt\":\"fox\"}"));
    OperationRow row =
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions() // until the workflow registered the operation
            .until(() -> ledger.get("op-timeout"), r -> r.phase() == Phase.IN_REVIEW);

    assertThat(row.reviewReason()).contains("post_outcome_unknown");
    assertThat(get("/livez", null).statusCode()).isEqualTo(200);
    assertThat(readiness()).isEqualTo(new Readiness(true, true, "ready"));
  }

  @Test
  void drain_puts_a_post_still_in_flight_in_review_and_never_makes_it_dispatchable()
      throws Exception {
    start(environment());
    simulator.setFaults(simulator.faults().withLatencyMs(6000));
    client.start(new GenerationRequest("op-drain", "image-v1", "{\"prompt\":\"fox\"}"));
    await().until(() -> !process.state().postsInFlight().isEmpty());

    CompletableFuture<Void> drained = CompletableFuture.runAsync(process::drain);
    await().until(() -> readiness().reason().equals("draining"));
    drained.get();

    OperationRow row = ledger.get("op-drain");
    assertThat(row.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(row.reviewReason()).contains("drained_during_post");
    await().atMost(Duration.ofSeconds(30)).until(() -> simulator.stats().postsFor("op-drain") == 1);
    assertThat(
            ledger.claim("op-drain", "another-worker", com.genace.client.model.NextAction.DISPATCH))
        .isInstanceOf(com.genace.activities.ledger.ClaimResult.NotAcquired.class);
    assertThat(simulator.stats().postsFor("op-drain")).isEqualTo(1);
  }
}
