package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.connection.TemporalSettings;
import com.genace.testkit.LoopbackPorts;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.health.Readiness;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.TcpProxy;
import com.genace.worker.support.TestEnvironment;
import com.genace.worker.temporal.SearchAttributes;
import com.genace.worker.temporal.TemporalConnection;
import com.genace.worker.temporal.TemporalTarget;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testserver.TestServer;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readiness that tells the truth about Temporal: task polls that fail make the worker unready with
 * the reason in {@code /status}; a Temporal or a database that cannot serve the worker stops its
 * start with one line that names the variable.
 */
@ExtendWith(DatabaseExtension.class)
class TemporalReadinessTest {

  @TempDir Path artifacts;
  private final HttpClient http = HttpClient.newHttpClient();
  private GenaceSimulator simulator;
  private WorkerProcess process;

  @BeforeEach
  void setUp() {
    simulator = GenerationHarness.simulator();
  }

  @AfterEach
  void tearDown() {
    if (process != null) {
      process.close();
    }
    simulator.close();
  }

  private Map<String, String> environment() {
    Map<String, String> env = TestEnvironment.worker(simulator.baseUrl(), artifacts);
    env.put("GENACE_WORKER_ID", "worker-temporal");
    return env;
  }

  private String get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + process.statusServer().address().getPort() + path);
    return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private int status(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + process.statusServer().address().getPort() + path);
    return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  @Test
  void failing_polls_make_the_worker_unready_with_the_reason_until_temporal_answers_again()
      throws Exception {
    int port = LoopbackPorts.free();
    try (var server = TestServer.createPortBoundServer(port, true);
        TcpProxy proxy = new TcpProxy(new InetSocketAddress("127.0.0.1", port))) {
      try (TemporalConnection direct =
          TemporalConnection.open(TemporalSettings.local("127.0.0.1:" + port))) {
        SearchAttributes.register(direct.stubs(), "default");
      }
      String address = "127.0.0.1:" + proxy.port();
      process =
          new WorkerProcess(
              WorkerConfig.fromEnvironment(environment()),
              TemporalTarget.of(TemporalSettings.local(address)),
              Clock.systemUTC());
      process.start();
      await().until(() -> process.state().readiness().acceptingDispatch());

      proxy.cut();

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !process.state().readiness().acceptingObservation());
      assertThat(process.state().readiness())
          .isEqualTo(new Readiness(false, false, "temporal_polls_failing"));
      assertThat(status("/readyz")).isEqualTo(503);
      assertThat(status("/livez")).isEqualTo(200);
      assertThat(get("/status")).contains("\"polls\":\"UNAVAILABLE");
      await().until(process::dispatchPollingSuspended);

      proxy.restore();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> process.state().readiness().acceptingDispatch());
      assertThat(get("/status")).contains("\"polls\":\"ok\"");
    }
  }

  @Test
  void a_worker_started_before_temporal_and_the_database_waits_unready_and_starts_when_both_answer()
      throws Exception {
    int temporalPort = LoopbackPorts.free();
    URI ledger = URI.create(TestDatabase.url().jdbcUrl().substring("jdbc:".length()));
    try (TcpProxy database =
        new TcpProxy(new InetSocketAddress(ledger.getHost(), ledger.getPort()))) {
      database.cut();
      Map<String, String> env = environment();
      env.put(
          "DATABASE_URL",
          TestDatabase.databaseUrlValue()
              .replaceFirst("//[^/]+/", "//127.0.0.1:" + database.port() + "/"));
      process =
          new WorkerProcess(
              WorkerConfig.fromEnvironment(env),
              TemporalTarget.of(TemporalSettings.local("127.0.0.1:" + temporalPort)),
              Clock.systemUTC());
      CompletableFuture<Void> started =
          CompletableFuture.runAsync(
              () -> {
                try {
                  process.start();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              });

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(get("/startupz"))
                      .contains(
                          "\"reason\":\"temporal_unreachable: cannot reach Temporal at 127.0.0.1:"
                              + temporalPort
                              + " (TEMPORAL_ADDRESS)"));
      assertThat(status("/readyz")).isEqualTo(503);
      assertThat(status("/livez")).isEqualTo(200);
      Thread.sleep(3_000); // it keeps waiting: no exit, however long Temporal stays away
      assertThat(started).isNotDone();

      try (var server = TestServer.createPortBoundServer(temporalPort, true)) {
        try (TemporalConnection direct =
            TemporalConnection.open(TemporalSettings.local("127.0.0.1:" + temporalPort))) {
          SearchAttributes.register(direct.stubs(), "default");
        }
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> assertThat(get("/startupz")).contains("\"reason\":\"ledger_unavailable: "));
        assertThat(started).isNotDone();

        database.restore();
        started.get(90, TimeUnit.SECONDS);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> process.state().readiness().acceptingDispatch());
        assertThat(status("/readyz")).isEqualTo(200);
      }
    }
  }

  @Test
  void a_database_that_refuses_the_credentials_stops_the_start_with_the_drivers_cause()
      throws Exception {
    TestWorkflowEnvironment temporal = TestWorkflowEnvironment.newInstance();
    try {
      GenerationHarness.registerSearchAttributes(temporal);
      Map<String, String> env = environment();
      String jdbc = TestDatabase.url().jdbcUrl();
      env.put("DATABASE_URL", jdbc + "?user=no_such_role&password=wrong-secret");
      process =
          new WorkerProcess(
              WorkerConfig.fromEnvironment(env),
              TemporalTarget.sameChannelAs(temporal.getWorkflowServiceStubs(), "in-process"),
              Clock.systemUTC());

      assertThatThrownBy(process::start)
          .isInstanceOf(StartupFailure.class)
          .hasMessageStartingWith("DATABASE_URL (")
          .hasMessageContaining("no_such_role")
          .hasMessageNotContaining("wrong-secret")
          .hasMessageNotContaining("null");
    } finally {
      temporal.close();
    }
  }
}
