package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.connection.EncryptionCodec;
import com.genace.client.connection.PayloadKeys;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewResolution;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.TestEnvironment;
import com.genace.worker.temporal.TemporalTarget;
import com.genace.worker.temporal.WorkflowTaskFailures;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.history.v1.History;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GENACE_PAYLOAD_KEYS}: every payload the worker and the client write is encrypted, so a
 * prompt never lies in clear in Temporal's history (nor a signal's, an update's or a failure's
 * payload), while search attributes stay readable; a worker without the key fails the workflow
 * task, loudly, and does nothing with the operation.
 */
@ExtendWith(DatabaseExtension.class)
class EncryptedHistoryTest {

  private static final String PROMPT = "a secret red fox in the snow";
  private static final String KEYS =
      "k1:" + Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes());

  @TempDir Path artifacts;
  private TestWorkflowEnvironment temporal;
  private GenaceSimulator simulator;
  private OperationsLedger ledger;
  private GenerationClient keyed;

  @BeforeEach
  void setUp(DataSource db) {
    temporal = TestWorkflowEnvironment.newInstance();
    GenerationHarness.registerSearchAttributes(temporal);
    simulator = GenerationHarness.simulator();
    ledger = new OperationsLedger(db);
    keyed =
        new GenerationClient(
            WorkflowClient.newInstance(
                temporal.getWorkflowServiceStubs(),
                WorkflowClientOptions.newBuilder()
                    .setNamespace(temporal.getNamespace())
                    .setDataConverter(
                        PayloadKeys.fromEnvironment(Map.of(PayloadKeys.VARIABLE, KEYS))
                            .orElseThrow()
                            .dataConverter())
                    .build()));
  }

  @AfterEach
  void tearDown() {
    temporal.close();
    simulator.close();
  }

  private WorkerProcess worker(boolean withKeys) throws Exception {
    Map<String, String> env = TestEnvironment.worker(simulator.baseUrl(), artifacts);
    env.put("GENACE_DRAIN_SECONDS", "1");
    if (withKeys) {
      env.put(PayloadKeys.VARIABLE, KEYS);
    }
    WorkerProcess process =
        new WorkerProcess(
            WorkerConfig.fromEnvironment(env),
            TemporalTarget.sameChannelAs(temporal.getWorkflowServiceStubs(), "in-process"),
            Clock.systemUTC());
    process.start();
    return process;
  }

  private static GenerationRequest request(String id) {
    return new GenerationRequest(id, "image-v1", "{\"prompt\":\"" + PROMPT + "\"}");
  }

  @Test
  void the_prompt_is_nowhere_in_the_history_and_the_search_attributes_stay_clear()
      throws Exception {
    try (WorkerProcess process = worker(true)) {
      keyed.start(request("op-sealed"));
      await()
          .atMost(Duration.ofMinutes(1))
          .until(
              () -> ledger.find("op-sealed").map(r -> r.phase() == Phase.DELIVERED).orElse(false));
      // A query needs a worker to answer it: asked while this one runs.
      assertThat(keyed.describe("op-sealed").phase()).isEqualTo(Phase.DELIVERED);
    }

    String history =
        temporal
            .getWorkflowClient() // no codec: what the server, and anyone reading it, holds
            .fetchHistory(GenerationWorkflow.workflowId("op-sealed"))
            .toJson(true);
    assertThat(history)
        .doesNotContain(PROMPT)
        .doesNotContain("a secret")
        // Unpadded: the JSON writes the padding's '=' as \u003d.
        .contains(
            Base64.getEncoder().withoutPadding().encodeToString("binary/encrypted".getBytes()))
        .contains("GenacePhase");
    assertThat(ledger.get("op-sealed").requestJson())
        .as("the application's own database keeps the request")
        .contains(PROMPT);
    assertThat(simulator.stats().postsFor("op-sealed")).isEqualTo(1);
  }

  @Test
  void signals_updates_and_failures_are_sealed_too_and_only_what_the_docs_list_stays_clear()
      throws Exception {
    try (WorkerProcess process = worker(true)) {
      simulator.setFaults(simulator.faults().withRate5xx(1.0));
      keyed.start(request("op-reviewed"));
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> keyed.describe("op-reviewed").awaitsOperator());
      keyed.signalResolution(
          "op-reviewed", new ReviewResolution("guess", null, "a secret typo", "alice"));
      await().until(() -> !keyed.describe("op-reviewed").rejectedResolutions().isEmpty());
      // Accepted, then refused on Genace's answer: the update's failure lies in the history.
      assertThatThrownBy(
              () ->
                  keyed.resolve(
                      "op-reviewed",
                      new ReviewResolution(
                          "found_remote_job", "gen_unknown", "a secret guess", "alice")))
          .isInstanceOf(ResolutionRefusedException.class);
      keyed.resolve(
          "op-reviewed", new ReviewResolution("abandon", null, "a secret reason", "alice"));
      await()
          .atMost(Duration.ofMinutes(1))
          .until(
              () ->
                  ledger.find("op-reviewed").map(r -> r.phase() == Phase.ABANDONED).orElse(false));
    }

    History history =
        temporal
            .getWorkflowClient()
            .fetchHistory(GenerationWorkflow.workflowId("op-reviewed"))
            .getHistory();
    Map<String, Payload> payloads = new LinkedHashMap<>();
    collect(history, "", payloads);
    assertThat(payloads.keySet())
        .as("the signal's, the update's and a failure's payloads are in the history")
        .anyMatch(path -> path.contains("workflow_execution_signaled"))
        .anyMatch(path -> path.contains("workflow_execution_update_accepted"))
        .anyMatch(path -> path.contains("failure"));
    assertThat(payloads)
        .allSatisfy(
            (path, payload) -> {
              if (!clearByDesign(path)) {
                assertThat(payload.getMetadataMap().get("encoding").toStringUtf8())
                    .as(path)
                    .isEqualTo(EncryptionCodec.ENCODING);
              }
            });
    assertThat(history.toString()).doesNotContain("a secret");
  }

  /** What docs/security.md lists as staying clear: none of it comes from a request. */
  private static boolean clearByDesign(String path) {
    return path.contains("search_attributes")
        || path.contains("header.fields[_tracer-data]#")
        || path.contains("marker_recorded_event_attributes.details");
  }

  /** Every payload inside {@code message}, by its field path, through protobuf's reflection. */
  private static void collect(Message message, String path, Map<String, Payload> found) {
    if (message instanceof Payload payload) {
      found.put(path + "#" + found.size(), payload);
      return;
    }
    for (Map.Entry<Descriptors.FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
      Descriptors.FieldDescriptor descriptor = field.getKey();
      String at = path + "." + descriptor.getName();
      if (descriptor.getJavaType() != Descriptors.FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (descriptor.isMapField()) {
        for (Object entry : (List<?>) field.getValue()) {
          Message pair = (Message) entry;
          Object key = pair.getField(descriptor.getMessageType().findFieldByName("key"));
          Object value = pair.getField(descriptor.getMessageType().findFieldByName("value"));
          if (value instanceof Message inner) {
            collect(inner, at + "[" + key + "]", found);
          }
        }
      } else if (descriptor.isRepeated()) {
        for (Object element : (List<?>) field.getValue()) {
          collect((Message) element, at, found);
        }
      } else {
        collect((Message) field.getValue(), at, found);
      }
    }
  }

  @Test
  void a_worker_without_the_key_fails_the_workflow_task_and_touches_nothing() throws Exception {
    try (WorkerProcess process = worker(false)) {
      keyed.start(request("op-unreadable"));

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(
                          WorkflowTaskFailures.latest(
                              temporal.getWorkflowServiceStubs(),
                              temporal.getNamespace(),
                              GenerationWorkflow.workflowId("op-unreadable")))
                      .hasValueSatisfying(
                          why -> assertThat(why).contains("payload encrypted with key 'k1'")));
      assertThat(ledger.find("op-unreadable")).as("nothing registered").isEmpty();
      assertThat(simulator.stats().postsFor("op-unreadable")).isZero();
    }
  }
}
