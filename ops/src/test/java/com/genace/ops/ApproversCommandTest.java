package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationWorkflow;
import com.genace.client.connection.TemporalSettings;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.StackFixture;
import com.genace.worker.temporal.TemporalConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ops approvers} and the signing {@code ops resolve}: a key pair made, registered and
 * listed; a {@code not_submitted} refused unsigned and accepted signed with {@code
 * GENACE_OPERATOR_KEY}; {@code --print-payload}'s signed JSON accepted as the Web UI would send it.
 */
@ExtendWith(DatabaseExtension.class)
class ApproversCommandTest {

  @RegisterExtension static final StackFixture stack = new StackFixture();

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path keys;

  @Test
  void keys_are_made_registered_listed_and_removed() throws Exception {
    CliRunner.Result unguarded = stack.cli("ops", "approvers", "list");
    CliRunner.Result keygen =
        stack.cli("ops", "approvers", "keygen", "alice", "--out", keys.toString());
    CliRunner.Result add =
        stack.cli(
            "ops", "approvers", "add", "alice", "--key", keys.resolve("alice.pub").toString());
    CliRunner.Result again =
        stack.cli(
            "ops", "approvers", "add", "alice", "--key", keys.resolve("alice.pub").toString());
    CliRunner.Result notAKey =
        stack.cli("ops", "approvers", "add", "bob", "--key", keys.resolve("alice.key").toString());
    CliRunner.Result listed = stack.cli("ops", "approvers", "list", "--json");
    CliRunner.Result removed = stack.cli("ops", "approvers", "remove", "alice");

    assertThat(unguarded.out()).contains("spending is unguarded");
    assertThat(keygen.exitCode()).as(keygen.err()).isZero();
    assertThat(Files.getPosixFilePermissions(keys.resolve("alice.key")))
        .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    assertThat(Files.readString(keys.resolve("alice.pub")))
        .startsWith("-----BEGIN PUBLIC KEY-----");
    assertThat(add.exitCode()).as(add.err()).isZero();
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err()).contains("approver alice is registered already");
    assertThat(notAKey.exitCode()).isEqualTo(2);
    assertThat(notAKey.err()).contains("not an Ed25519 public key");
    JsonNode json = JSON.readTree(listed.out());
    assertThat(json.get("guarded").asBoolean()).isTrue();
    assertThat(json.get("approvers").findValuesAsText("name")).containsExactly("alice");
    assertThat(removed.out()).contains("approver alice removed", "spending is unguarded");
  }

  @Test
  void resolve_signs_not_submitted_with_the_operator_key_and_refuses_it_unsigned() {
    registerAlice();
    inReview("op-signed");

    CliRunner.Result unsigned =
        stack.cli(
            "ops",
            "resolve",
            "op-signed",
            "--not-submitted",
            "--reason",
            "no job",
            "--by",
            "alice");
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("GENACE_OPERATOR_KEY", keys.resolve("alice.key").toString());
    CliRunner.Result signed =
        CliRunner.run(
            env,
            "ops",
            "resolve",
            "op-signed",
            "--not-submitted",
            "--reason",
            "no job",
            "--by",
            "alice");

    assertThat(unsigned.exitCode()).isEqualTo(1);
    assertThat(unsigned.err())
        .contains("the workflow refused the resolution")
        .contains("needs an approval signed by a registered approver");
    assertThat(signed.exitCode()).as(signed.err()).isZero();
    assertThat(signed.out()).contains("accepted not_submitted");
    stack.awaitPhase("op-signed", Phase.DELIVERED);
    assertThat(stack.simulator().stats().postsFor("op-signed")).isEqualTo(2);
  }

  @Test
  void the_printed_payload_is_the_signed_signal_the_web_ui_sends() throws Exception {
    registerAlice();
    inReview("op-pasted");
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("GENACE_OPERATOR_KEY", keys.resolve("alice.key").toString());

    CliRunner.Result printed =
        CliRunner.run(
            env,
            "ops",
            "resolve",
            "op-pasted",
            "--not-submitted",
            "--reason",
            "no job",
            "--by",
            "alice",
            "--print-payload");

    assertThat(printed.exitCode()).as(printed.err()).isZero();
    JsonNode payload = JSON.readTree(printed.out());
    assertThat(payload.at("/approvals/0/approver").asText()).isEqualTo("alice");
    assertThat(payload.at("/approvals/0/operationId").asText()).isEqualTo("op-pasted");
    assertThat(stack.simulator().stats().postsFor("op-pasted")).as("nothing sent yet").isEqualTo(1);
    try (TemporalConnection temporal =
        TemporalConnection.open(TemporalSettings.fromEnvironment(stack.env()))) {
      temporal
          .workflowClient()
          .newUntypedWorkflowStub(GenerationWorkflow.workflowId("op-pasted"))
          .signal(GenerationWorkflow.RESOLUTION_SIGNAL, payload);
    }
    stack.awaitPhase("op-pasted", Phase.DELIVERED);
    assertThat(stack.simulator().stats().postsFor("op-pasted")).isEqualTo(2);
  }

  private void registerAlice() {
    assertThat(
            stack.cli("ops", "approvers", "keygen", "alice", "--out", keys.toString()).exitCode())
        .isZero();
    CliRunner.Result add =
        stack.cli(
            "ops", "approvers", "add", "alice", "--key", keys.resolve("alice.pub").toString());
    assertThat(add.exitCode()).as(add.err()).isZero();
  }

  /** Submitted with the POST answered 503: in review, and Genace holds no job of it. */
  private void inReview(String id) {
    stack.simulator().setFaults(stack.simulator().faults().withRate5xx(1.0));
    stack.submit(id);
    stack.awaitPhase(id, Phase.IN_REVIEW);
    stack.simulator().setFaults(stack.simulator().faults().withRate5xx(0));
    stack.awaitWorkflowPhase(id, Phase.IN_REVIEW);
  }
}
