package com.genace.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.dist.support.Manifests;
import com.genace.dist.support.RecordingEnvironment;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.health.StatusServer;
import com.genace.worker.health.WorkerMetrics;
import com.genace.worker.health.WorkerState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/kubernetes agrees with the worker: the probes ask the endpoints that mean liveness,
 * readiness and startup on the port the worker listens on, the grace period covers the drain, and
 * every variable the manifests set is one the worker (or bin/genace) reads, so that renaming an
 * endpoint or a variable fails the build.
 */
class KubernetesManifestsTest {

  /**
   * What the worker still does after its drain budget before it exits: it records the reviews of
   * POSTs still in flight, waits for its poll loop's status polls under way (up to 11 s, {@code
   * PollLoop.close}), stops its observation and delivery activities (up to 5 s more, {@code Drain})
   * and closes its pools.
   */
  static final Duration SHUTDOWN_MARGIN = Duration.ofSeconds(20);

  /** Read by the OpenTelemetry SDK's autoconfiguration, whatever the name after the prefix. */
  static final String OPENTELEMETRY_PREFIX = "OTEL_";

  static final Path LAUNCHER = Path.of("src/main/dist/bin/genace");

  private final Manifests manifests = Manifests.load(Manifests.DIRECTORY);
  private final JsonNode deployment = manifests.get("Deployment", "genace-worker");
  private final JsonNode worker = manifests.container(deployment, "worker");

  @Test
  void every_file_holds_kubernetes_objects_with_a_kind_and_a_name() {
    assertThat(manifests.all()).hasSizeGreaterThanOrEqualTo(5);
    for (JsonNode object : manifests.all()) {
      assertThat(object.path("apiVersion").asText()).isNotEmpty();
      assertThat(object.path("kind").asText()).isNotEmpty();
      assertThat(object.at("/metadata/name").asText()).isNotEmpty();
    }
  }

  @Test
  void the_deployment_configures_a_worker_that_listens_for_probes_on_the_status_port() {
    WorkerConfig config = WorkerConfig.fromEnvironment(workerEnvironment());

    assertThat(config.statusAddress().getAddress().isAnyLocalAddress())
        .as("GENACE_STATUS_ADDR must bind every interface: the kubelet probes the pod's address")
        .isTrue();
    JsonNode port = worker.at("/ports/0");
    assertThat(port.path("containerPort").asInt()).isEqualTo(config.statusAddress().getPort());
    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
      JsonNode probePort = worker.at("/" + probe + "/httpGet/port");
      assertThat(probePort.asText())
          .as(probe + " port")
          .isIn(port.path("name").asText(), port.path("containerPort").asText());
    }
  }

  @Test
  void each_probe_asks_the_endpoint_with_its_meaning() throws Exception {
    WorkerConfig config = WorkerConfig.fromEnvironment(workerEnvironment());
    WorkerState state = new WorkerState(Clock.systemUTC(), 1, config.configVersion());
    WorkerMetrics metrics = new WorkerMetrics(state, config);
    try (StatusServer server =
        new StatusServer(
            new InetSocketAddress("127.0.0.1", 0),
            state,
            Optional.of("token"),
            () -> null,
            metrics)) {
      server.start();
      Probes probes = new Probes(server.address(), worker);

      String phase = "starting";
      assertThat(probes.status("livenessProbe")).as("livenessProbe, %s", phase).isEqualTo(200);
      assertThat(probes.status("startupProbe")).as("startupProbe, %s", phase).isEqualTo(503);
      assertThat(probes.status("readinessProbe")).as("readinessProbe, %s", phase).isEqualTo(503);

      state.startupProblem(null);
      state.ledgerChecked(Optional.empty(), Optional.empty());
      phase = "started";
      assertThat(probes.status("startupProbe")).as("startupProbe, %s", phase).isEqualTo(200);
      assertThat(probes.status("readinessProbe")).as("readinessProbe, %s", phase).isEqualTo(200);

      state.startDraining();
      phase = "draining";
      assertThat(probes.status("livenessProbe")).as("livenessProbe, %s", phase).isEqualTo(200);
      assertThat(probes.status("startupProbe")).as("startupProbe, %s", phase).isEqualTo(200);
      assertThat(probes.status("readinessProbe")).as("readinessProbe, %s", phase).isEqualTo(503);
    } finally {
      metrics.close();
    }
  }

  @Test
  void the_grace_period_exceeds_the_drain_budget_with_a_margin() {
    WorkerConfig config = WorkerConfig.fromEnvironment(workerEnvironment());
    Duration grace =
        Duration.ofSeconds(
            deployment.at("/spec/template/spec/terminationGracePeriodSeconds").asInt());

    assertThat(grace)
        .as("terminationGracePeriodSeconds vs GENACE_DRAIN_SECONDS + margin")
        .isGreaterThanOrEqualTo(config.drainTimeout().plus(SHUTDOWN_MARGIN));
    assertThat(config.drainTimeout())
        .as("a POST in flight at SIGTERM may take the whole Genace read timeout")
        .isGreaterThanOrEqualTo(config.genaceReadTimeout());
  }

  @Test
  void every_variable_the_manifests_set_is_one_that_is_read() throws IOException {
    Set<String> read = new TreeSet<>(variablesTheWorkerReads());
    read.addAll(variablesTheLauncherReads());

    for (JsonNode object : manifests.all()) {
      for (JsonNode container : manifests.containers(object)) {
        for (String name : manifests.variableNames(container)) {
          if (!name.startsWith(OPENTELEMETRY_PREFIX)) {
            assertThat(read)
                .as(object.at("/metadata/name").asText() + " sets " + name + ": nothing reads it")
                .contains(name);
          }
        }
      }
    }
  }

  @Test
  void secrets_come_from_the_secret_and_the_configuration_version_from_the_config_map() {
    for (String secret :
        List.of("DATABASE_URL", "GENACE_API_KEY", "GENACE_STATUS_TOKEN", "TEMPORAL_API_KEY")) {
      JsonNode variable = manifests.variable(worker, secret);
      assertThat(variable.at("/valueFrom/secretKeyRef/name").asText())
          .as(secret)
          .isEqualTo("genace-secrets");
      assertThat(variable.has("value")).as(secret + " written in the manifest").isFalse();
    }
    // The migration runs as the schema's owner, from a Secret the workers cannot read.
    JsonNode migrate = manifests.container(manifests.get("Job", "genace-db-migrate"), "migrate");
    assertThat(
            manifests.variable(migrate, "DATABASE_URL").at("/valueFrom/secretKeyRef/name").asText())
        .isEqualTo("genace-migrate-secrets");
    assertThat(
            manifests.variable(migrate, "DATABASE_URL").at("/valueFrom/secretKeyRef/key").asText())
        .isEqualTo(
            manifests.variable(worker, "DATABASE_URL").at("/valueFrom/secretKeyRef/key").asText());

    JsonNode configMap = manifests.get("ConfigMap", "genace-config");
    assertThat(configMap.path("data").has("GENACE_CONFIG_VERSION")).isTrue();
    assertThat(worker.at("/envFrom/0/configMapRef/name").asText()).isEqualTo("genace-config");
    assertThat(configMap.path("data").fieldNames())
        .toIterable()
        .doesNotContain(
            "DATABASE_URL", "GENACE_API_KEY", "GENACE_STATUS_TOKEN", "TEMPORAL_API_KEY");
  }

  @Test
  void the_worker_runs_a_worker_and_the_job_migrates_and_nothing_runs_the_embedded_stack() {
    assertThat(manifests.args(worker)).containsExactly("worker");
    JsonNode migrate = manifests.container(manifests.get("Job", "genace-db-migrate"), "migrate");
    assertThat(manifests.args(migrate)).containsExactly("db", "migrate");
    for (JsonNode object : manifests.all()) {
      for (JsonNode container : manifests.containers(object)) {
        assertThat(manifests.args(container)).doesNotContain("demo", "dev", "simulator", "bench");
      }
    }
  }

  @Test
  void the_disruption_budget_covers_the_workers_only() {
    JsonNode selector =
        manifests.get("PodDisruptionBudget", "genace-worker").at("/spec/selector/matchLabels");
    JsonNode workerLabels = deployment.at("/spec/template/metadata/labels");
    JsonNode jobLabels =
        manifests.get("Job", "genace-db-migrate").at("/spec/template/metadata/labels");
    selector
        .fields()
        .forEachRemaining(
            label -> {
              assertThat(workerLabels.path(label.getKey())).isEqualTo(label.getValue());
            });
    assertThat(jobLabels).isNotEqualTo(workerLabels);
    assertThat(selector.path("app.kubernetes.io/name"))
        .isNotEqualTo(jobLabels.path("app.kubernetes.io/name"));
  }

  /** The Deployment's environment as the pod sees it, with stand-ins for the Secret's values. */
  private Map<String, String> workerEnvironment() {
    return manifests.environment(
        deployment,
        worker,
        Map.of(
            "database-url", "postgresql://genace:secret@db.internal:5432/genace",
            "genace-api-key", "sk-stand-in",
            "status-token", "stand-in"));
  }

  /** The names {@link WorkerConfig#fromEnvironment} asks for, recorded as it reads them. */
  static Set<String> variablesTheWorkerReads() {
    RecordingEnvironment env =
        new RecordingEnvironment(
            Map.of(
                "DATABASE_URL", "postgresql://genace@db.internal:5432/genace",
                "GENACE_BASE_URL", "https://api.genace.example",
                "GENACE_API_KEY", "sk-stand-in"));
    WorkerConfig.fromEnvironment(env);
    return env.asked();
  }

  /** The variables bin/genace itself uses ({@code ${NAME}} or {@code $NAME}). */
  static Set<String> variablesTheLauncherReads() throws IOException {
    Set<String> names = new TreeSet<>();
    Matcher matcher =
        Pattern.compile("\\$\\{?([A-Z][A-Z0-9_]*)").matcher(Files.readString(LAUNCHER));
    while (matcher.find()) {
      names.add(matcher.group(1));
    }
    return names;
  }

  /** The HTTP status each probe of the container gets from a real status server. */
  private record Probes(InetSocketAddress server, JsonNode container) {
    int status(String probe) throws IOException, InterruptedException {
      String path = container.at("/" + probe + "/httpGet/path").asText();
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getPort() + path))
              .timeout(Duration.ofSeconds(5))
              .build();
      return HttpClient.newHttpClient()
          .send(request, HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }
  }
}
