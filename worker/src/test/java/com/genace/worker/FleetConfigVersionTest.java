package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.fleet.FleetConfiguration;
import com.genace.worker.health.Readiness;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.TestEnvironment;
import com.genace.worker.temporal.TemporalTarget;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two workers deployed with different configuration versions share one fleet: only the one whose
 * version is not the fleet's current one stops dispatching; both keep observing and delivering.
 */
@ExtendWith(DatabaseExtension.class)
class FleetConfigVersionTest {

  @TempDir Path artifacts;
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<WorkerProcess> processes = new ArrayList<>();
  private TestWorkflowEnvironment temporal;
  private GenaceSimulator simulator;
  private GenerationClient client;
  private OperationsLedger ledger;
  private FleetConfiguration fleet;

  @BeforeEach
  void setUp(DataSource db) {
    temporal = TestWorkflowEnvironment.newInstance();
    GenerationHarness.registerSearchAttributes(temporal);
    simulator = GenerationHarness.simulator();
    client = new GenerationClient(temporal.getWorkflowClient());
    ledger = new OperationsLedger(db);
    fleet = new FleetConfiguration(db);
  }

  @AfterEach
  void tearDown() {
    processes.forEach(WorkerProcess::close);
    temporal.close();
    simulator.close();
  }

  private WorkerProcess start(String workerId, String configVersion) throws Exception {
    Map<String, String> env = TestEnvironment.worker(simulator.baseUrl(), artifacts);
    env.put("GENACE_WORKER_ID", workerId);
    if (configVersion != null) {
      env.put("GENACE_CONFIG_VERSION", configVersion);
    }
    WorkerProcess process =
        new WorkerProcess(
            WorkerConfig.fromEnvironment(env),
            TemporalTarget.sameChannelAs(temporal.getWorkflowServiceStubs(), "in-process"),
            Clock.systemUTC());
    processes.add(process);
    process.start();
    return process;
  }

  private String status(WorkerProcess process) throws Exception {
    URI uri =
        URI.create("http://127.0.0.1:" + process.statusServer().address().getPort() + "/status");
    return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private String metrics(WorkerProcess process) throws Exception {
    URI uri =
        URI.create("http://127.0.0.1:" + process.statusServer().address().getPort() + "/metrics");
    return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * Who sent the operation's POST: the owner of its {@code accepted} transition. (A task poll of
   * the dispatch queue already waiting on the server when polling stopped may still bring a worker
   * one task; its dispatch gate then stops the POST before it leaves.)
   */
  private Set<String> dispatchedBy(String operationId) {
    assertThat(simulator.stats().postsFor(operationId)).isEqualTo(1);
    return ledger.history(operationId).stream()
        .filter(t -> t.accepted() && t.event().equals("accepted"))
        .map(TransitionRow::owner)
        .flatMap(java.util.Optional::stream)
        .collect(Collectors.toSet());
  }

  @Test
  void only_the_worker_on_a_stale_version_stops_dispatching_and_a_change_is_honoured_in_seconds()
      throws Exception {
    fleet.setVersion("v2", "alice", "new model costs");
    WorkerProcess current = start("worker-v2", "v2");
    WorkerProcess stale = start("worker-v1", "v1");

    await().until(() -> stale.state().readiness().reason().equals("config_version_mismatch"));
    assertThat(stale.state().readiness())
        .isEqualTo(new Readiness(false, true, "config_version_mismatch"));
    assertThat(stale.dispatchPollingSuspended()).isTrue();
    assertThat(current.state().readiness()).isEqualTo(new Readiness(true, true, "ready"));
    assertThat(status(stale))
        .contains("\"config_version\":{\"worker\":\"v1\",\"fleet\":\"v2\",\"current\":false")
        .contains("\"reason\":\"config_version_mismatch\"");
    assertThat(status(current))
        .contains("\"config_version\":{\"worker\":\"v2\",\"fleet\":\"v2\",\"current\":true");
    assertThat(metrics(stale)).contains("genace_config_version_current 0.0");
    assertThat(metrics(current)).contains("genace_config_version_current 1.0");

    for (int i = 0; i < 4; i++) {
      client.start(new GenerationRequest("op-" + i, "image-v1", "{\"prompt\":\"fox\"}"));
    }
    for (int i = 0; i < 4; i++) {
      assertThat(client.awaitResult("op-" + i, Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.DELIVERED);
      assertThat(dispatchedBy("op-" + i)).containsExactly("worker-v2");
    }

    // The fleet moves to v1: the roles swap without a restart.
    fleet.setVersion("v1", "alice", "rollback");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                current.state().readiness().reason().equals("config_version_mismatch")
                    && stale.state().readiness().acceptingDispatch());
    assertThat(current.dispatchPollingSuspended()).isTrue();
    client.start(new GenerationRequest("op-after", "image-v1", "{\"prompt\":\"fox\"}"));
    assertThat(client.awaitResult("op-after", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.DELIVERED);
    assertThat(dispatchedBy("op-after")).containsExactly("worker-v1");
  }

  @Test
  void a_worker_without_a_version_takes_no_dispatch_once_the_fleet_has_one() throws Exception {
    WorkerProcess unversioned = start("worker-unversioned", null);
    await().until(() -> unversioned.state().readiness().acceptingDispatch());

    fleet.setVersion("v1", "alice", null);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !unversioned.state().readiness().acceptingDispatch());
    assertThat(unversioned.state().readiness())
        .isEqualTo(new Readiness(false, true, "config_version_mismatch"));
    assertThat(status(unversioned)).contains("\"worker\":null,\"fleet\":\"v1\"");
  }

  @Test
  void workers_with_different_fleet_settings_show_different_fingerprints() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://db/genace");
    env.put("GENACE_BASE_URL", "http://genace");
    env.put("GENACE_API_KEY", "k");
    String plain = WorkerConfig.fromEnvironment(env).fleetFingerprint();
    env.put("GENACE_MODEL_COSTS", "image-v1=3");
    String costly = WorkerConfig.fromEnvironment(env).fleetFingerprint();
    env.put("GENACE_STATUS_ADDR", "127.0.0.1:9999"); // not a fleet setting
    String elsewhere = WorkerConfig.fromEnvironment(env).fleetFingerprint();

    assertThat(plain).hasSize(16).isNotEqualTo(costly);
    assertThat(elsewhere).isEqualTo(costly);
  }
}
