package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationSearchAttributes;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.Urgency;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.RealTemporalServer;
import com.genace.worker.support.TemporalCli;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DataConverter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end against a real Temporal server ({@code temporal server start-dev} in CI, see
 * docs/real-temporal.md), where the test server's shortcuts do not apply: the search attributes,
 * summaries and current details an operator sees are checked through the server's own visibility
 * and describe APIs, and through the official CLI.
 *
 * <p>Tagged {@code real-temporal}: excluded from the default build, run by .ci/run. Without {@value
 * RealTemporalServer#ADDRESS_VARIABLE} the class is skipped, or fails when {@code CI=true}.
 */
@Tag("real-temporal")
@ExtendWith(DatabaseExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RealTemporalServerTest {

  /** Visibility is eventually consistent: what a query finds may lag the workflow a little. */
  private static final Duration VISIBILITY = Duration.ofSeconds(30);

  private static final Duration RESULT = Duration.ofMinutes(1);

  @TempDir static Path artifacts;
  private static RealTemporalServer server;

  /** Per test, so that a missing server shows as each test skipped (or failed in CI). */
  @BeforeEach
  void connect() {
    if (server == null) {
      String address =
          RealTemporalServer.required(
              RealTemporalServer.ADDRESS_VARIABLE, "the real Temporal server");
      server = RealTemporalServer.connect(address, artifacts);
    }
  }

  @AfterAll
  static void disconnect() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  /** Unique per run, so that re-runs against the same server never join an old workflow. */
  private static String operationId(String name) {
    return "real-" + name + "-" + UUID.randomUUID();
  }

  @Test
  void an_operation_is_dispatched_once_and_delivered_on_the_real_server() throws Exception {
    String id = operationId("happy");

    server.client.start(request(id));
    OperationResult result = server.client.awaitResult(id, RESULT);

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(server.simulator.stats().postsFor(id)).isEqualTo(1);
    assertThat(server.ledger.get(id).phase()).isEqualTo(Phase.DELIVERED);
    try (var files = Files.walk(artifacts.resolve("generations").resolve(id))) {
      assertThat(files.filter(Files::isRegularFile).count()).isGreaterThanOrEqualTo(1);
    }
    WorkflowExecutionMetadata listed =
        awaitListed(
            "GenacePhase = 'delivered' AND GenaceNeedsReview = false"
                + " AND GenaceRemoteJobId = '"
                + result.remoteJobId()
                + "'",
            id);
    assertThat(listed.getTypedSearchAttributes().get(GenerationSearchAttributes.REMOTE_JOB_ID))
        .isEqualTo(result.remoteJobId());
  }

  @Test
  void an_operation_starts_with_its_urgency_and_its_account_as_the_fairness_key() throws Exception {
    String id = operationId("urgent");

    server.client.start(
        new GenerationRequest(id, "image-v1", "{\"prompt\":\"a red fox\"}", null, "shop"),
        Urgency.INTERACTIVE);
    assertThat(server.client.awaitResult(id, RESULT).phase()).isEqualTo(Phase.DELIVERED);

    var started =
        server
            .workflowClient
            .fetchHistory(GenerationWorkflow.workflowId(id))
            .getHistory()
            .getEvents(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getPriority();
    assertThat(started.getPriorityKey()).isEqualTo(1);
    assertThat(started.getFairnessKey()).isEqualTo("shop");
  }

  @Test
  void a_lost_post_response_is_found_by_operators_in_review_and_resolved_by_update()
      throws Exception {
    String id = operationId("lost");
    String workflowId = GenerationWorkflow.workflowId(id);
    server.simulator.setFaults(server.simulator.faults().withLosePostResponseNext(1));

    server.client.start(request(id));

    // What an operator's Web UI list shows: the search attributes, through the server's visibility.
    WorkflowExecutionMetadata inReview =
        awaitListed("GenaceNeedsReview = true AND GenacePhase = 'in_review'", id);
    assertThat(inReview.getTypedSearchAttributes().get(GenerationSearchAttributes.NEEDS_REVIEW))
        .isTrue();
    assertThat(inReview.getTypedSearchAttributes().get(GenerationSearchAttributes.PHASE))
        .isEqualTo("in_review");

    // What the workflow's page shows: the static summary, the current details, activity summaries.
    WorkflowStub stub = server.workflowClient.newUntypedWorkflowStub(workflowId);
    WorkflowExecutionDescription description = stub.describe();
    assertThat(description.getStaticSummary())
        .isEqualTo("Genace generation `" + id + "` (image-v1)");
    WorkflowMetadata metadata =
        stub.query(WorkflowClient.QUERY_TYPE_WORKFLOW_METADATA, WorkflowMetadata.class);
    assertThat(metadata.getCurrentDetails())
        .startsWith("**in_review**")
        .contains("post_outcome_unknown");
    assertThat(metadata.getDefinition().getUpdateDefinitionsList())
        .anySatisfy(update -> assertThat(update.getName()).isEqualTo("resolve"));
    assertThat(activitySummaries(workflowId))
        .contains("POST /v1/generations (image-v1)", "open review: post_outcome_unknown");

    // The operator found the job on Genace's side and resolves with the validated update.
    List<String> jobs = server.simulator.jobsForOperation(id);
    assertThat(jobs).hasSize(1);
    String ack =
        server.client.resolve(
            id, new ReviewResolution("found_remote_job", jobs.get(0), "seen in dashboard", "ci"));
    OperationResult result = server.client.awaitResult(id, RESULT);

    assertThat(ack).isEqualTo("accepted found_remote_job");
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.remoteJobId()).isEqualTo(jobs.get(0));
    assertThat(server.simulator.stats().postsFor(id)).isEqualTo(1);
    assertThat(server.ledger.get(id).reviewResolvedBy()).contains("ci");
    awaitListed("GenacePhase = 'delivered' AND GenaceNeedsReview = false", id);
    assertThat(
            stub.query(WorkflowClient.QUERY_TYPE_WORKFLOW_METADATA, WorkflowMetadata.class)
                .getCurrentDetails())
        .startsWith("**delivered**")
        .contains(jobs.get(0));
  }

  @Test
  void the_client_lists_an_operation_while_it_waits_in_review_and_no_longer_once_resolved()
      throws Exception {
    String id = operationId("listed");
    String delivered = operationId("not-listed");
    server.client.start(request(delivered));
    assertThat(server.client.awaitResult(delivered, RESULT).phase()).isEqualTo(Phase.DELIVERED);
    server.simulator.setFaults(server.simulator.faults().withLosePostResponseNext(1));

    server.client.start(request(id));

    List<String> listed =
        await()
            .atMost(VISIBILITY)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> server.client.operationsInReview(1000), ids -> ids.contains(id));
    assertThat(listed).doesNotContain(delivered);
    assertThat(server.client.describe(id).phase()).isEqualTo(Phase.IN_REVIEW);

    server.client.resolve(
        id, new ReviewResolution("abandon", null, "the customer cancelled", "ci"));
    assertThat(server.client.awaitResult(id, RESULT).phase()).isEqualTo(Phase.ABANDONED);
    await()
        .atMost(VISIBILITY)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> server.client.operationsInReview(1000), ids -> !ids.contains(id));
  }

  @Test
  void an_operator_finds_and_resolves_a_review_with_the_official_cli() throws Exception {
    TemporalCli cli =
        new TemporalCli(
            RealTemporalServer.required(RealTemporalServer.CLI_VARIABLE, "the temporal CLI binary"),
            server.address,
            RealTemporalServer.NAMESPACE);
    String id = operationId("cli");
    String workflowId = GenerationWorkflow.workflowId(id);
    server.simulator.setFaults(server.simulator.faults().withLosePostResponseNext(1));
    server.client.start(request(id));

    JsonNode inReview = awaitCliListed(cli, "GenaceNeedsReview = true", workflowId);
    assertThat(decodedPayload(inReview.at("/searchAttributes/indexedFields/GenacePhase")))
        .isEqualTo("\"in_review\"");
    JsonNode metadata = cli.workflowMetadata(workflowId);
    assertThat(metadata.at("/queryResult/0/currentDetails").asText())
        .as("temporal workflow metadata: %s", metadata)
        .startsWith("**in_review**")
        .contains("post_outcome_unknown");

    // The update refuses an incomplete decision synchronously; the signal then resolves it.
    assertThatThrownBy(
            () ->
                cli.update(
                    workflowId,
                    "resolve",
                    "{\"decision\":\"abandon\",\"reason\":\"\",\"resolvedBy\":\"cli\"}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a reason is required");
    String job = server.simulator.jobsForOperation(id).get(0);
    cli.signal(
        workflowId,
        "resolveReconciliation",
        "{\"decision\":\"found_remote_job\",\"remoteJobId\":\""
            + job
            + "\",\"reason\":\"seen in dashboard\",\"resolvedBy\":\"cli\"}");
    OperationResult result = server.client.awaitResult(id, RESULT);
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(server.simulator.stats().postsFor(id)).isEqualTo(1);

    awaitCliListed(cli, "GenacePhase = \"delivered\"", workflowId);
    JsonNode described = cli.describeWorkflow(workflowId);
    JsonNode fields = described.at("/workflowExecutionInfo/searchAttributes/indexedFields");
    assertThat(decodedPayload(fields.path("GenacePhase"))).isEqualTo("\"delivered\"");
    assertThat(decodedPayload(fields.path("GenaceNeedsReview"))).isEqualTo("false");
    assertThat(decodedPayload(fields.path("GenaceRemoteJobId"))).isEqualTo("\"" + job + "\"");
    assertThat(described.at("/executionConfig/userMetadata/summary").asText())
        .isEqualTo("Genace generation `" + id + "` (image-v1)");
    JsonNode finalMetadata = cli.workflowMetadata(workflowId);
    assertThat(finalMetadata.at("/queryResult/0/currentDetails").asText())
        .as("temporal workflow metadata: %s", finalMetadata)
        .startsWith("**delivered**");
  }

  /** Waits until {@code temporal workflow list} finds exactly the workflow for the query. */
  private static JsonNode awaitCliListed(TemporalCli cli, String query, String workflowId) {
    String scoped = query + " AND WorkflowId = \"" + workflowId + "\"";
    List<JsonNode> listed =
        await()
            .atMost(VISIBILITY)
            .pollInterval(Duration.ofMillis(500))
            .until(() -> cli.listWorkflows(scoped), executions -> executions.size() == 1);
    assertThat(listed.get(0).at("/execution/workflowId").asText()).isEqualTo(workflowId);
    return listed.get(0);
  }

  /** Waits until visibility returns exactly the operation's workflow for the query. */
  private static WorkflowExecutionMetadata awaitListed(String query, String operationId) {
    String scoped =
        query + " AND WorkflowId = '" + GenerationWorkflow.workflowId(operationId) + "'";
    return await()
        .atMost(VISIBILITY)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> server.workflowClient.listExecutions(scoped).toList(), found -> found.size() == 1)
        .get(0);
  }

  /** The summaries of the activities scheduled so far, as the Web UI's timeline shows them. */
  private static List<String> activitySummaries(String workflowId) {
    DataConverter converter = server.workflowClient.getOptions().getDataConverter();
    return server.workflowClient.fetchHistory(workflowId).getEvents().stream()
        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .filter(event -> event.getUserMetadata().hasSummary())
        .map(
            event -> {
              Payload summary = event.getUserMetadata().getSummary();
              return converter.fromPayload(summary, String.class, String.class);
            })
        .toList();
  }

  /** A payload as the CLI prints it ({@code data} in base64), decoded to its JSON text. */
  private static String decodedPayload(JsonNode payload) {
    assertThat(payload).as("payload").isNotNull();
    assertThat(payload.isMissingNode()).as("payload missing").isFalse();
    return new String(
        Base64.getDecoder().decode(payload.path("data").asText()), StandardCharsets.UTF_8);
  }
}
