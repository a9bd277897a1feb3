package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.CancelRequest;
import com.genace.client.DeliveredArtifact;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.EvidenceJob;
import com.genace.client.review.ResolutionPayload;
import com.genace.client.review.ReviewCase;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import com.genace.workflows.lifecycle.RetentionWorkflow;
import com.genace.workflows.lifecycle.SweepWorkflow;
import com.genace.workflows.model.FailureTypes;
import com.genace.workflows.model.RemoteStatus;
import com.google.protobuf.ByteString;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The wire contract in docs/contract against the code: what the Java side sends validates against
 * the schemas, the schemas' examples read into the Java types, and what the schemas refuse the Java
 * side refuses too. A schema that drifts from the code fails here.
 */
class ContractSchemaTest {

  private static final Path CONTRACT = Path.of("..", "docs", "contract");
  private static final String ID_PREFIX = "https://genace.dev/contract/";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DeliveredArtifact ARTIFACT =
      new DeliveredArtifact(
          "operations/op/gen_1/0.png",
          "file:///var/lib/genace/operations/op/gen_1/0.png",
          48213,
          "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
          "image/png");

  /** What the SDK puts on the wire: the same converter the client and the worker use. */
  private static final DataConverter WIRE = DefaultDataConverter.STANDARD_INSTANCE;

  private static final SchemaRegistry SCHEMAS =
      SchemaRegistry.withDefaultDialect(
          SpecificationVersion.DRAFT_2020_12,
          builder ->
              builder.schemas(
                  iri ->
                      iri.startsWith(ID_PREFIX) ? read(iri.substring(ID_PREFIX.length())) : null));

  @Test
  void the_start_input_the_java_client_sends_matches_the_schema() {
    assertValid(
        "start-input",
        new GenerationRequest("order-1", "image-v1", "{\"prompt\":\"a red fox\"}", 60, "team-a"));
    JsonNode minimal =
        assertValid(
            "start-input", new GenerationRequest("order-2", "image-v1", "{\"prompt\":\"x\"}"));
    assertThat(minimal.get("input").isObject()).as("input is an object, not a string").isTrue();
    assertThat(minimal.has("inputJson")).isFalse();
  }

  @Test
  void the_start_input_examples_read_into_the_same_request_and_back() {
    for (JsonNode example : examples("start-input")) {
      assertThat(errors("start-input", example)).isEmpty();
      GenerationRequest request = fromWire(example, GenerationRequest.class);
      request.validate();
      assertThat(request.model()).isEqualTo(example.get("model").asText());
      assertThat(readTree(request.inputJson())).isEqualTo(example.get("input"));
      JsonNode back = toWire(request);
      example.fieldNames().forEachRemaining(f -> assertThat(back.get(f)).isEqualTo(example.get(f)));
    }
  }

  @Test
  void a_decimal_in_the_input_keeps_every_digit_on_the_wire() {
    String input = "{\"guidance\":0.12345678901234567890123,\"big\":1e400,\"scale\":7.0}";
    GenerationRequest request = new GenerationRequest("op-d", "image-v1", input);

    // As bytes, not as a tree: a default ObjectMapper's tree would itself round the decimals.
    String wire = WIRE.toPayload(request).orElseThrow().getData().toStringUtf8();
    GenerationRequest received = fromWire(wire, GenerationRequest.class);

    JsonNode exact =
        readTree(
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS),
            received.inputJson());
    assertThat(exact.get("guidance").decimalValue())
        .isEqualByComparingTo("0.12345678901234567890123");
    assertThat(exact.get("big").decimalValue()).isEqualByComparingTo("1e400");
    assertThat(received.inputJson()).as("a decimal stays a decimal").contains("\"scale\":7.0");
  }

  @Test
  void start_inputs_the_schema_refuses_are_refused_by_validation_naming_the_field() {
    Map<String, String> refused = new TreeMap<>();
    refused.put("input", "{\"operationId\":\"a\",\"model\":\"m\",\"input\":\"{}\"}");
    refused.put("input ", "{\"operationId\":\"a\",\"model\":\"m\",\"input\":[1]}");
    refused.put("input  ", "{\"operationId\":\"a\",\"model\":\"m\"}");
    refused.put("model", "{\"operationId\":\"a\",\"model\":\" \",\"input\":{}}");
    refused.put("model ", "{\"operationId\":\"a\",\"model\":\"m\\u0007\",\"input\":{}}");
    refused.put(
        "model  ", "{\"operationId\":\"a\",\"model\":\"" + "m".repeat(201) + "\",\"input\":{}}");
    refused.put("account", "{\"operationId\":\"a\",\"model\":\"m\",\"input\":{},\"account\":\"\"}");
    refused.put("operation id", "{\"operationId\":\"\",\"model\":\"m\",\"input\":{}}");
    refused.put(
        "dispatch timeout",
        "{\"operationId\":\"a\",\"model\":\"m\",\"input\":{},\"dispatchTimeoutSeconds\":0}");
    refused.put(
        "dispatch timeout ",
        "{\"operationId\":\"a\",\"model\":\"m\",\"input\":{},\"dispatchTimeoutSeconds\":1801}");
    refused.forEach(
        (field, json) -> {
          JsonNode document = readTree(json);
          assertThat(errors("start-input", document)).as(json).isNotEmpty();
          GenerationRequest request = fromWire(document, GenerationRequest.class);
          assertThatThrownBy(request::validate)
              .as(json)
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageStartingWith(field.strip());
        });
  }

  @Test
  void resolutions_the_java_side_builds_match_the_schema_and_the_examples_are_accepted() {
    for (ReviewDecision decision : ReviewDecision.values()) {
      ReviewResolution resolution = new ReviewResolution(decision.wire(), "gen_1", "why", "alice");
      assertValid("review-resolution", resolution);
      assertThat(resolution.problem()).isEmpty();
    }
    assertValid("review-resolution", new ReviewResolution("abandon", null, "why", null));
    for (JsonNode example : examples("review-resolution")) {
      assertThat(errors("review-resolution", example)).isEmpty();
      assertThat(fromWire(example, ReviewResolution.class).problem())
          .as(example.toString())
          .isEmpty();
    }
  }

  @Test
  void resolutions_the_schema_refuses_have_a_problem() {
    for (String json :
        List.of(
            "{\"decision\":\"found_remote_job\",\"reason\":\"seen\"}",
            "{\"decision\":\"found_remote_job\",\"remoteJobId\":\" \",\"reason\":\"seen\"}",
            "{\"decision\":\"maybe\",\"reason\":\"why\"}",
            "{\"decision\":\"abandon\"}",
            "{\"decision\":\"abandon\",\"reason\":\"  \"}")) {
      JsonNode document = readTree(json);
      assertThat(errors("review-resolution", document)).as(json).isNotEmpty();
      assertThat(fromWire(document, ReviewResolution.class).problem()).as(json).isPresent();
    }
  }

  @Test
  void every_describe_result_the_workflow_can_give_matches_the_schema() {
    ReviewResolution resolution = new ReviewResolution("found_remote_job", "gen_1", "seen", "bob");
    for (Phase phase : Phase.values()) {
      for (RemoteStatus status : RemoteStatus.values()) {
        assertValid(
            "describe-result",
            new OperationView(
                "op",
                phase,
                "gen_1",
                status.wire(),
                2,
                null,
                List.of("refused"),
                List.of(),
                false));
      }
    }
    for (ReviewReason reason : ReviewReason.values()) {
      assertValid(
          "describe-result",
          new OperationView(
              "op",
              Phase.IN_REVIEW,
              null,
              null,
              1,
              new ReviewCase(reason, "d", null, null, null),
              List.of(),
              List.of(),
              true));
      assertValid(
          "describe-result",
          new OperationView(
              "op",
              Phase.OBSERVING,
              "gen_1",
              null,
              1,
              new ReviewCase(reason, "d", "gen_0", resolution, null),
              List.of(),
              List.of(),
              false));
    }
    ReviewEvidence evidence =
        new ReviewEvidence(
            "op",
            List.of(
                new EvidenceJob(
                    "gen_1", "running", "2026-11-30T10:00:00Z", "op", EvidenceJob.SEARCH),
                new EvidenceJob("gen_0", "queued", null, null, EvidenceJob.EXCHANGE)),
            ReviewEvidence.SEARCHED,
            3,
            List.of("a note"),
            "gen_1");
    for (String search : List.of(ReviewEvidence.NOT_OFFERED, "failed: 503 from Genace")) {
      assertValid(
          "describe-result",
          new OperationView(
              "op",
              Phase.IN_REVIEW,
              null,
              null,
              1,
              new ReviewCase(
                  ReviewReason.POST_OUTCOME_UNKNOWN,
                  "d",
                  null,
                  null,
                  new ReviewEvidence("op", List.of(), search, 0, List.of(), null)),
              List.of(),
              List.of(),
              true));
    }
    assertValid(
        "describe-result",
        new OperationView(
            "op",
            Phase.DELIVERED,
            "gen_1",
            "succeeded",
            1,
            new ReviewCase(ReviewReason.POST_OUTCOME_UNKNOWN, "d", null, resolution, evidence),
            List.of(),
            List.of(ARTIFACT),
            false));
    for (JsonNode example : examples("describe-result")) {
      assertThat(errors("describe-result", example)).isEmpty();
      assertThat(toWire(fromWire(example, OperationView.class))).isEqualTo(example);
    }
  }

  @Test
  void every_end_of_an_operation_matches_the_workflow_result_schema() {
    for (Phase phase : Phase.values()) {
      JsonNode result =
          toWire(new OperationResult("op", phase, "gen_1", "detail", List.of(ARTIFACT)));
      if (phase.isTerminal()) {
        assertThat(errors("workflow-result", result)).as(phase.name()).isEmpty();
      } else {
        assertThat(errors("workflow-result", result)).as(phase.name()).isNotEmpty();
      }
    }
    for (JsonNode example : examples("workflow-result")) {
      assertThat(errors("workflow-result", example)).isEmpty();
      assertThat(toWire(fromWire(example, OperationResult.class))).isEqualTo(example);
    }
    JsonNode older = readTree("{\"operationId\":\"op\",\"phase\":\"DELIVERED\"}");
    assertThat(errors("workflow-result", older)).as("a result from before artifacts").isEmpty();
    assertThat(fromWire(older, OperationResult.class).artifacts()).isEmpty();
  }

  @Test
  void signal_payloads_the_schema_accepts_are_read_and_those_it_refuses_are_refused() {
    for (JsonNode example : examples("review-resolution")) {
      ResolutionPayload.Parsed parsed = ResolutionPayload.parse(example);
      assertThat(parsed.problem()).as(example.toString()).isNull();
      assertThat(parsed.resolution().problem()).as(example.toString()).isEmpty();
    }
    for (String json :
        List.of(
            "[\"abandon\"]",
            "\"abandon\"",
            "null",
            "{\"decision\":\"abandon\",\"reason\":5}",
            "{\"decision\":\"abandon\",\"reason\":\"why\",\"resolved_by\":\"alice\"}",
            "{\"decision\":\"maybe\",\"reason\":\"why\"}")) {
      JsonNode document = readTree(json);
      assertThat(errors("review-resolution", document)).as(json).isNotEmpty();
      ResolutionPayload.Parsed parsed = ResolutionPayload.parse(document);
      boolean refused =
          parsed.problem() != null || parsed.resolution().problemAsWhole().isPresent();
      assertThat(refused).as(json).isTrue();
    }
  }

  @Test
  void cancel_requests_the_java_side_builds_match_the_schema_and_the_examples_are_accepted() {
    assertValid("cancel-request", new CancelRequest("the customer cancelled", "shop"));
    assertValid("cancel-request", new CancelRequest("wrong prompt", "alice", true));
    assertValid("cancel-request", CancelRequest.fromTemporal(null));
    for (JsonNode example : examples("cancel-request")) {
      assertThat(errors("cancel-request", example)).isEmpty();
      CancelRequest request = fromWire(example, CancelRequest.class);
      assertThat(request.problem()).as(example.toString()).isEmpty();
      assertThat(toWire(request).get("reason")).isEqualTo(example.get("reason"));
    }
    for (JsonNode example : examples("cancel-result")) {
      assertThat(errors("cancel-result", example)).isEmpty();
    }
    for (ReviewDecision decision : ReviewDecision.values()) {
      assertThat(errors("resolve-result", JSON.valueToTree("accepted " + decision.wire())))
          .isEmpty();
    }
  }

  @Test
  void cancel_requests_the_schema_refuses_have_a_problem() {
    String long_ = "x".repeat(CancelRequest.MAX_TEXT_LENGTH + 1);
    for (String json :
        List.of(
            "{\"requestedBy\":\"alice\"}",
            "{\"reason\":\" \",\"requestedBy\":\"alice\"}",
            "{\"reason\":\"why\"}",
            "{\"reason\":\"why\",\"requestedBy\":\"\"}",
            "{\"reason\":\"" + long_ + "\",\"requestedBy\":\"alice\"}")) {
      JsonNode document = readTree(json);
      assertThat(errors("cancel-request", document)).as(json).isNotEmpty();
      assertThat(fromWire(document, CancelRequest.class).problem()).as(json).isPresent();
    }
  }

  @Test
  void the_workflow_document_names_what_the_java_interface_declares() throws IOException {
    JsonNode workflow = JSON.readTree(read("workflow.json"));

    assertThat(workflow.get("workflowType").asText())
        .isEqualTo(GenerationWorkflow.class.getSimpleName());
    assertThat(GenerationWorkflow.workflowId("op-1"))
        .isEqualTo(workflow.get("workflowIdPrefix").asText() + "op-1");
    assertThat(workflow.get("taskQueue").asText()).isEqualTo(TaskQueues.OPERATIONS);
    assertThat(names(workflow.get("signals"))).isEqualTo(declared(SignalMethod.class));
    assertThat(names(workflow.get("updates"))).isEqualTo(declared(UpdateMethod.class));
    assertThat(names(workflow.get("queries"))).isEqualTo(declared(QueryMethod.class));
    assertThat(validated()).isEqualTo(names(workflow.get("updates")));
    assertThat(names(workflow.get("failureTypes")))
        .containsExactly(FailureTypes.INVALID_REQUEST, FailureTypes.RESOLUTION_REFUSED);
    assertThat(names(workflow.get("otherWorkflowTypes")))
        .containsExactlyInAnyOrder(
            RetentionWorkflow.class.getSimpleName(), SweepWorkflow.class.getSimpleName());
    List<String> schemas = new ArrayList<>();
    schemas.add(workflow.get("input").asText());
    schemas.add(workflow.get("result").asText());
    for (String kind : List.of("signals", "updates", "queries")) {
      workflow
          .get(kind)
          .forEach(
              entry -> {
                for (String role : List.of("input", "result")) {
                  if (entry.has(role)) {
                    schemas.add(entry.get(role).asText());
                  }
                }
                if (kind.equals("updates")) {
                  assertThat(entry.get("validated").asBoolean()).isTrue();
                }
              });
    }
    assertThat(schemas).hasSize(2 + 1 + 6 + 1);
    for (String schema : schemas) {
      assertThat(CONTRACT.resolve(schema)).exists();
    }
  }

  /** The updates the interface declares a validator for. */
  private static List<String> validated() {
    return Arrays.stream(GenerationWorkflow.class.getMethods())
        .filter(m -> m.isAnnotationPresent(UpdateValidatorMethod.class))
        .map(m -> m.getAnnotation(UpdateValidatorMethod.class).updateName())
        .sorted()
        .toList();
  }

  private static List<String> names(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names.stream().sorted().toList();
  }

  /** The signal, update or query names the interface declares (the method name unless renamed). */
  private static List<String> declared(Class<? extends java.lang.annotation.Annotation> kind) {
    return Arrays.stream(GenerationWorkflow.class.getMethods())
        .filter(m -> m.isAnnotationPresent(kind))
        .map(ContractSchemaTest::declaredName)
        .sorted()
        .toList();
  }

  private static String declaredName(Method method) {
    String renamed =
        method.isAnnotationPresent(SignalMethod.class)
            ? method.getAnnotation(SignalMethod.class).name()
            : method.isAnnotationPresent(UpdateMethod.class)
                ? method.getAnnotation(UpdateMethod.class).name()
                : method.getAnnotation(QueryMethod.class).name();
    return renamed.isEmpty() ? method.getName() : renamed;
  }

  private static JsonNode assertValid(String schema, Object value) {
    JsonNode wire = toWire(value);
    assertThat(errors(schema, wire)).as(schema + ": " + wire).isEmpty();
    return wire;
  }

  private static List<String> errors(String schema, JsonNode document) {
    Schema loaded = SCHEMAS.getSchema(SchemaLocation.of(ID_PREFIX + schema + ".schema.json"));
    return loaded.validate(document).stream().map(Error::toString).toList();
  }

  private static List<JsonNode> examples(String schema) {
    JsonNode examples = readTree(read(schema + ".schema.json")).get("examples");
    assertThat(examples).as(schema + " has examples").isNotNull().isNotEmpty();
    return StreamSupport.stream(examples.spliterator(), false).toList();
  }

  private static JsonNode toWire(Object value) {
    Payload payload = WIRE.toPayload(value).orElseThrow();
    return readTree(payload.getData().toStringUtf8());
  }

  private static <T> T fromWire(JsonNode document, Class<T> type) {
    return fromWire(document.toString(), type);
  }

  private static <T> T fromWire(String json, Class<T> type) {
    Payload payload =
        Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFromUtf8(json))
            .build();
    return WIRE.fromPayload(payload, type, type);
  }

  private static JsonNode readTree(String json) {
    return readTree(JSON, json);
  }

  private static JsonNode readTree(ObjectMapper mapper, String json) {
    try {
      return mapper.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(String name) {
    try {
      return Files.readString(CONTRACT.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
