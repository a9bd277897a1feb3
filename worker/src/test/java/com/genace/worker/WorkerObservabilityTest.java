package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewResolution;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.telemetry.JsonLogging;
import com.genace.worker.telemetry.TemporalTracing;
import com.genace.worker.temporal.TemporalTarget;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Traces and logs of one operation run by the worker process, from the outside: the client starts
 * it through a traced {@link WorkflowClient}, an in-memory exporter collects the spans, and
 * standard output collects the JSON log lines.
 */
@ExtendWith(DatabaseExtension.class)
class WorkerObservabilityTest {

  static final String API_KEY = "sk-live-observability-secret";
  static final String TOKEN = "status-token-observability-secret";

  @TempDir Path artifacts;
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private OpenTelemetrySdk sdk;
  private TestWorkflowEnvironment temporal;
  private GenaceSimulator simulator;
  private WorkerProcess process;
  private GenerationClient client;

  @BeforeEach
  void setUp() {
    sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    GlobalOpenTelemetry.resetForTest();
    GlobalOpenTelemetry.set(sdk);
    temporal = TestWorkflowEnvironment.newInstance();
    GenerationHarness.registerSearchAttributes(temporal);
    simulator =
        GenaceSimulator.builder()
            .apiKey(API_KEY)
            .faults(Faults.DEFAULT.withJobDurationMs(300))
            .start();
    WorkflowClient traced =
        WorkflowClient.newInstance(
            temporal.getWorkflowServiceStubs(),
            WorkflowClientOptions.newBuilder(temporal.getWorkflowClient().getOptions())
                .setInterceptors(TemporalTracing.clientInterceptor(sdk))
                .build());
    client = new GenerationClient(traced);
  }

  @AfterEach
  void tearDown() {
    if (process != null) {
      process.close();
    }
    temporal.close();
    simulator.close();
    GlobalOpenTelemetry.resetForTest();
    sdk.close();
  }

  private void startWorker() throws InterruptedException {
    // The lost response's review must wait for a person: its resolutions are logged.
    startWorker(false);
  }

  private void startWorker(boolean autoReconcile) throws InterruptedException {
    String jdbc = TestDatabase.url().jdbcUrl();
    String databaseUrl =
        jdbc
            + (jdbc.contains("?") ? "&" : "?")
            + TestDatabase.url().user().map(u -> "user=" + u).orElse("")
            + TestDatabase.url().password().map(p -> "&password=" + p).orElse("");
    Map<String, String> env =
        Map.of(
            "DATABASE_URL",
            databaseUrl,
            "GENACE_BASE_URL",
            simulator.baseUrl().toString(),
            "GENACE_API_KEY",
            API_KEY,
            "GENACE_ARTIFACT_DIR",
            artifacts.toString(),
            "GENACE_WORKER_ID",
            "worker-observed",
            "GENACE_STATUS_ADDR",
            "127.0.0.1:0",
            "GENACE_STATUS_TOKEN",
            TOKEN,
            "GENACE_AUTO_RECONCILE",
            String.valueOf(autoReconcile));
    process =
        new WorkerProcess(
            WorkerConfig.fromEnvironment(env),
            TemporalTarget.sameChannelAs(temporal.getWorkflowServiceStubs(), "in-process"),
            Clock.systemUTC());
    process.start();
  }

  private void runOneOperation(String operationId) throws Exception {
    client.start(new GenerationRequest(operationId, "image-v1", "{\"prompt\":\"a red fox\"}"));
    assertThat(client.awaitResult(operationId, Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.DELIVERED);
  }

  @Test
  void one_operation_is_one_trace_from_the_client_start_to_each_http_call_and_sql_statement()
      throws Exception {
    startWorker();
    runOneOperation("op-traced");
    await().until(() -> named("RunWorkflow:GenerationWorkflow").isPresent());

    List<SpanData> finished = spans.getFinishedSpanItems();
    SpanData start = named("StartWorkflow:GenerationWorkflow").orElseThrow();
    String traceId = start.getTraceId();
    List<SpanData> trace = finished.stream().filter(s -> s.getTraceId().equals(traceId)).toList();
    List<String> names = trace.stream().map(SpanData::getName).toList();
    assertThat(names)
        .contains(
            "StartWorkflow:GenerationWorkflow",
            "RunWorkflow:GenerationWorkflow",
            "RunActivity:RegisterAndDispatch",
            "RunActivity:AwaitRemoteJob",
            "RunActivity:Deliver",
            "genace POST /v1/generations",
            "genace GET /v1/generations/{id}",
            "genace GET output",
            "ledger create",
            "ledger claim",
            "ledger claim_to_submit",
            "ledger record_accepted",
            "ledger record_delivered");
    // The status polls made by the poll loop, on no activity, join the waiting activity's span.
    String awaiting = only(trace, "RunActivity:AwaitRemoteJob").getSpanId();
    assertThat(trace)
        .filteredOn(s -> s.getName().equals("genace GET /v1/generations/{id}"))
        .isNotEmpty()
        .allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo(awaiting));
    // Everything but the worker's own work (startup checks of Genace, claims of the poll
    // schedule, which serve every operation) belongs to the operation's trace.
    assertThat(finished)
        .filteredOn(s -> !s.getName().equals("genace GET /v1/models"))
        .filteredOn(s -> !s.getName().equals("ledger claim_due_polls"))
        .filteredOn(
            s ->
                !StartupChecks.SEARCH_PROBE.equals(
                    s.getAttributes().get(AttributeKey.stringKey("genace.operation_id"))))
        .allSatisfy(s -> assertThat(s.getTraceId()).as(s.getName()).isEqualTo(traceId));

    SpanData dispatch = only(trace, "RunActivity:RegisterAndDispatch");
    assertThat(only(trace, "ledger create").getParentSpanId()).isEqualTo(dispatch.getSpanId());
    SpanData post = only(trace, "genace POST /v1/generations");
    assertThat(post.getParentSpanId()).isEqualTo(dispatch.getSpanId());
    assertThat(post.getAttributes().get(AttributeKey.longKey("http.response.status_code")))
        .isEqualTo(201L);
    assertThat(post.getAttributes().get(AttributeKey.stringKey("genace.operation_id")))
        .isEqualTo("op-traced");
    assertThat(only(trace, "ledger claim_to_submit").getParentSpanId())
        .isEqualTo(dispatch.getSpanId());
    assertThat(
            only(trace, "ledger claim_to_submit")
                .getAttributes()
                .get(AttributeKey.stringKey("db.query.text")))
        .contains("app_generation_operations")
        .doesNotContain("op-traced");

    assertThat(finished)
        .allSatisfy(
            s ->
                s.getAttributes()
                    .forEach(
                        (key, value) ->
                            assertThat(String.valueOf(value))
                                .as("%s of %s", key, s.getName())
                                .doesNotContain(API_KEY)));
  }

  @Test
  void json_log_lines_carry_the_operation_and_never_the_api_key_or_the_status_token()
      throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      assertThat(JsonLogging.install()).isTrue();
      startWorker();
      runOneOperation("op-logged");
      HttpResponse<String> status =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:"
                                  + process.statusServer().address().getPort()
                                  + "/status"))
                      .header("Authorization", "Bearer " + TOKEN)
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(status.statusCode()).isEqualTo(200);
      process.drain();
    } finally {
      restoreDefaultLogging();
      System.setOut(original);
    }

    String output = captured.toString(StandardCharsets.UTF_8);
    assertThat(output).doesNotContain(API_KEY).doesNotContain(TOKEN);
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : output.split("\n")) {
      if (!line.isBlank()) {
        lines.add(json.readTree(line)); // throws on anything that is not one JSON object
      }
    }
    assertThat(lines).allSatisfy(line -> assertThat(line.isObject()).isTrue());
    assertThat(lines)
        .allSatisfy(line -> assertThat(line.has("@timestamp") && line.has("level")).isTrue());

    List<JsonNode> activityLines =
        lines.stream()
            .filter(
                line ->
                    line.path("logger_name").asText().startsWith("com.genace.activities.dispatch"))
            .collect(Collectors.toList());
    assertThat(activityLines).as("the dispatch activity logs its POST").isNotEmpty();
    assertThat(activityLines)
        .allSatisfy(
            line -> {
              assertThat(line.path("operation_id").asText()).isEqualTo("op-logged");
              assertThat(line.path("workflow_id").asText())
                  .isEqualTo(GenerationWorkflow.workflowId("op-logged"));
              assertThat(line.path("owner").asText()).isEqualTo("worker-observed");
              assertThat(line.path("revision").asText()).matches("[0-9]+");
              assertThat(line.path("trace_id").asText()).hasSize(32);
            });
    assertThat(lines)
        .filteredOn(
            line -> line.path("logger_name").asText().startsWith("com.genace.activities.delivery"))
        .isNotEmpty()
        .allSatisfy(line -> assertThat(line.path("remote_job_id").asText()).isNotBlank());
  }

  @Test
  void every_outcome_that_matters_is_one_line_with_the_operation_its_workflow_and_remote_job()
      throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      assertThat(JsonLogging.install()).isTrue();
      startWorker();
      runOneOperation("op-fine");

      simulator.setFaults(simulator.faults().withFailRate(1.0));
      client.start(new GenerationRequest("op-fails", "image-v1", "{\"prompt\":\"x\"}"));
      assertThat(client.awaitResult("op-fails", Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.FAILED);

      simulator.setFaults(Faults.DEFAULT.withJobDurationMs(300).withLosePostResponseNext(1));
      client.start(new GenerationRequest("op-lost", "image-v1", "{\"prompt\":\"x\"}"));
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> client.describe("op-lost").phase() == Phase.IN_REVIEW);
      String job = simulator.jobsForOperation("op-lost").get(0);
      client.signalResolution(
          "op-lost", new ReviewResolution("found_remote_job", null, "no job id", "alice"));
      await().until(() -> !client.describe("op-lost").rejectedResolutions().isEmpty());
      client.resolve("op-lost", new ReviewResolution("found_remote_job", job, "seen", "alice"));
      assertThat(client.awaitResult("op-lost", Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.DELIVERED);
      process.drain();
    } finally {
      restoreDefaultLogging();
      System.setOut(original);
    }

    List<JsonNode> outcomes = new ArrayList<>();
    for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
      JsonNode json = line.isBlank() ? null : new ObjectMapper().readTree(line);
      if (json != null && json.path("logger_name").asText().endsWith("GenerationWorkflowImpl")) {
        outcomes.add(json);
      }
    }
    String lostJob = simulator.jobsForOperation("op-lost").get(0);
    assertOutcome(outcomes, "op-fine", "INFO", "artifact(s) delivered", true);
    assertOutcome(
        outcomes, "op-fails", "WARN", "failed: render failed: the simulated render", true);
    assertOutcome(outcomes, "op-lost", "ERROR", "needs review: post_outcome_unknown", false);
    assertOutcome(outcomes, "op-lost", "WARN", "resolution refused: ", false);
    JsonNode accepted =
        assertOutcome(outcomes, "op-lost", "INFO", "resolution found_remote_job by alice", true);
    assertThat(accepted.path("remote_job_id").asText()).isEqualTo(lostJob);
  }

  /**
   * ERROR means a person must act: a review that settles itself from its evidence (self-settling
   * on, as shipped) is a WARN when it opens and an INFO with the job it settled with; a review that
   * waits for an operator after its evidence writes exactly one ERROR, with that evidence.
   */
  @Test
  void a_review_that_settles_itself_logs_no_error_and_one_that_waits_for_an_operator_logs_one()
      throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      assertThat(JsonLogging.install()).isTrue();
      startWorker(true);
      simulator.setFaults(Faults.DEFAULT.withJobDurationMs(300).withLosePostResponseNext(1));
      client.start(new GenerationRequest("op-settles", "image-v1", "{\"prompt\":\"x\"}"));
      assertThat(client.awaitResult("op-settles", Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.DELIVERED);

      // Without Genace's search, nothing can settle the next lost response: an operator must.
      simulator.setFaults(
          Faults.DEFAULT
              .withJobDurationMs(300)
              .withLosePostResponseNext(1)
              .withSearchEnabled(false));
      client.start(new GenerationRequest("op-waits", "image-v1", "{\"prompt\":\"x\"}"));
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> client.describe("op-waits").awaitsOperator());
      String job = simulator.jobsForOperation("op-waits").get(0);
      client.resolve("op-waits", new ReviewResolution("found_remote_job", job, "seen", "alice"));
      assertThat(client.awaitResult("op-waits", Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.DELIVERED);
      process.drain();
    } finally {
      restoreDefaultLogging();
      System.setOut(original);
    }

    List<JsonNode> lines = new ArrayList<>();
    for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) {
        lines.add(new ObjectMapper().readTree(line));
      }
    }
    List<JsonNode> outcomes =
        lines.stream()
            .filter(line -> line.path("logger_name").asText().endsWith("GenerationWorkflowImpl"))
            .toList();
    assertOutcome(outcomes, "op-settles", "WARN", "opened a review: post_outcome_unknown", false);
    JsonNode settled =
        assertOutcome(outcomes, "op-settles", "INFO", "review settles itself with gen_", false);
    assertThat(settled.path("message").asText())
        .contains("1 job on Genace carries this operation id");
    assertOutcome(outcomes, "op-waits", "WARN", "opened a review: post_outcome_unknown", false);

    List<JsonNode> errors =
        lines.stream().filter(line -> line.path("level").asText().equals("ERROR")).toList();
    assertThat(errors).as("every ERROR line of the run").hasSize(1);
    JsonNode error = errors.get(0);
    assertThat(error.path("operation_id").asText()).isEqualTo("op-waits");
    assertThat(error.path("message").asText())
        .contains("operation op-waits needs review: post_outcome_unknown")
        .contains("evidence: search not offered by this Genace");
  }

  private static JsonNode assertOutcome(
      List<JsonNode> lines, String operationId, String level, String text, boolean hasJob) {
    List<JsonNode> matching =
        lines.stream()
            .filter(line -> line.path("message").asText().contains(text))
            .filter(line -> line.path("operation_id").asText().equals(operationId))
            .toList();
    assertThat(matching).as("%s of %s in %s", text, operationId, lines).hasSize(1);
    JsonNode line = matching.get(0);
    assertThat(line.path("level").asText()).as(text).isEqualTo(level);
    assertThat(line.path("workflow_id").asText())
        .isEqualTo(GenerationWorkflow.workflowId(operationId));
    if (hasJob) {
      assertThat(line.path("remote_job_id").asText()).as(text).startsWith("gen_");
    }
    return line;
  }

  private Optional<SpanData> named(String name) {
    return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst();
  }

  private static SpanData only(List<SpanData> trace, String name) {
    List<SpanData> matching = trace.stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(matching).as(name).hasSize(1);
    return matching.get(0);
  }

  private static void restoreDefaultLogging() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
  }
}
