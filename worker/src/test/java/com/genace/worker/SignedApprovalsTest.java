package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationClient;
import com.genace.client.OperationResult;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.Phase;
import com.genace.client.review.Approval;
import com.genace.client.review.ApprovalKeys;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may spend again, through the workflow: once an approver is registered, a {@code
 * not_submitted} (which sends a second paid POST) without a valid approval is refused and changes
 * nothing, {@code reconciler} cannot be claimed, and a valid approval is accepted once: the second
 * POST goes out and the audit names the key that signed.
 */
@ExtendWith(DatabaseExtension.class)
class SignedApprovalsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path artifacts;
  private GenerationHarness harness;
  private final KeyPair alice = ApprovalKeys.generate();

  @BeforeEach
  void an_operation_in_review_and_an_approver() {
    harness = new GenerationHarness(artifacts);
    assertThat(
            harness
                .ledger
                .approvers()
                .add("alice", ApprovalKeys.stored(alice.getPublic()), "admin"))
        .isTrue();
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1.0));
    harness.client.start(request("op-spend"));
    harness.awaitPhase("op-spend", Phase.IN_REVIEW);
    await().until(() -> harness.client.describe("op-spend").awaitsOperator());
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0));
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  private Approval signed(String operationId, Instant expiresAt) {
    String evidence =
        harness.ledger.approvers().latestEvidenceDigest("op-spend").orElse(Approval.NO_EVIDENCE);
    return Approval.signed(
        alice.getPrivate(), "alice", operationId, "not_submitted", evidence, expiresAt);
  }

  private static ReviewResolution notSubmitted(String by, Approval... approvals) {
    return new ReviewResolution("not_submitted", null, "no job on Genace", by, List.of(approvals));
  }

  @Test
  void without_a_valid_approval_not_submitted_is_refused_and_nothing_is_sent() {
    Instant soon = Instant.now().plus(Duration.ofMinutes(30));

    assertThatThrownBy(() -> harness.client.resolve("op-spend", notSubmitted("eve")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("needs an approval signed by a registered approver");
    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-spend", notSubmitted("eve", signed("op-someone-else", soon))))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("was signed for operation op-someone-else");
    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-spend",
                    notSubmitted("eve", signed("op-spend", Instant.now().minusSeconds(5)))))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("expired at");
    assertThatThrownBy(() -> harness.client.resolve("op-spend", notSubmitted("reconciler")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("'reconciler' is reserved");
    harness.client.signalResolution("op-spend", notSubmitted("reconciler"));
    harness.client.signalResolution("op-spend", notSubmitted("eve"));

    await().until(() -> harness.client.describe("op-spend").rejectedResolutions().size() >= 2);
    assertThat(harness.client.describe("op-spend").rejectedResolutions())
        .anySatisfy(r -> assertThat(r).contains("'reconciler' is reserved"))
        .anySatisfy(r -> assertThat(r).contains("needs an approval signed"));
    assertThat(harness.row("op-spend").phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(harness.postsFor("op-spend")).as("no second POST").isEqualTo(1);
  }

  /** A client of the same namespace that calls itself {@code identity}, as any caller may. */
  private GenerationClient clientCalled(String identity) {
    WorkflowClient base = harness.temporal.getWorkflowClient();
    return new GenerationClient(
        WorkflowClient.newInstance(
            harness.temporal.getWorkflowServiceStubs(),
            WorkflowClientOptions.newBuilder(base.getOptions()).setIdentity(identity).build()));
  }

  private TransitionRow resolved(String operationId) {
    return harness.ledger.history(operationId).stream()
        .filter(t -> t.event().equals("review_resolved"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void a_valid_approval_sends_the_second_post_and_the_audit_names_its_key() throws Exception {
    Approval approval = signed("op-spend", Instant.now().plus(Duration.ofMinutes(30)));

    String answer =
        clientCalled("alice@laptop").resolve("op-spend", notSubmitted("whoever", approval));
    OperationResult result = harness.client.awaitResult("op-spend", Duration.ofMinutes(1));

    assertThat(answer).isEqualTo("accepted not_submitted");
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(harness.postsFor("op-spend")).isEqualTo(2);
    JsonNode audit = JSON.readTree(resolved("op-spend").detailsJson());
    assertThat(audit.get("resolved_by").asText()).isEqualTo("alice (signed)");
    assertThat(audit.get("caller").asText())
        .as("Temporal's identity of the update's caller")
        .isEqualTo("alice@laptop");
    harness.replayAndRecord("op-spend", "review-not-submitted-signed");
  }

  @Test
  void a_decision_sent_by_signal_keeps_the_caller_s_identity_beside_the_payload_s_name()
      throws Exception {
    clientCalled("bob@desk")
        .signalResolution(
            "op-spend", new ReviewResolution("abandon", null, "the customer gave up", "carol"));

    harness.awaitPhase("op-spend", Phase.ABANDONED);
    JsonNode audit = JSON.readTree(resolved("op-spend").detailsJson());
    assertThat(audit.get("resolved_by").asText()).isEqualTo("carol");
    assertThat(audit.get("caller").asText()).isEqualTo("bob@desk");
  }
}
