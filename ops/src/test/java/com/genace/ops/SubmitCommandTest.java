package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.StackFixture;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(DatabaseExtension.class)
class SubmitCommandTest {

  @RegisterExtension static final StackFixture stack = new StackFixture();

  @Test
  void submit_prints_the_operation_id_and_the_operation_is_delivered() {
    CliRunner.Result result =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "image-v1",
            "--input",
            "{\"prompt\":\"a red fox\"}",
            "--operation-id",
            "submit-1");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).isEqualTo("submit-1\n");
    assertThat(result.err()).contains("started operation submit-1");
    assertThat(stack.awaitPhase("submit-1", Phase.DELIVERED).requestJson())
        .isEqualTo("{\"prompt\": \"a red fox\"}");
  }

  @Test
  void submit_records_the_account_whose_allowance_the_operation_draws_on() {
    CliRunner.Result result =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "image-v1",
            "--input",
            "{}",
            "--operation-id",
            "acme-1",
            "--account",
            "acme");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(stack.awaitPhase("acme-1", Phase.DELIVERED).account()).isEqualTo("acme");
  }

  @Test
  void submit_without_an_operation_id_generates_a_uuid() {
    CliRunner.Result result =
        CliRunner.run(stack.env(), "submit", "--model", "image-v1", "--input", "{}");

    assertThat(result.exitCode()).as(result.err()).isZero();
    String id = result.out().strip();
    assertThat(UUID.fromString(id).toString()).isEqualTo(id);
    stack.awaitPhase(id, Phase.DELIVERED);
  }

  @Test
  void submitting_the_same_operation_twice_sends_one_post() {
    String[] args = {"submit", "--model", "image-v1", "--input", "{}", "--operation-id", "twice"};

    CliRunner.Result first = CliRunner.run(stack.env(), args);
    CliRunner.Result second = CliRunner.run(stack.env(), args);
    stack.awaitPhase("twice", Phase.DELIVERED);
    CliRunner.Result third = CliRunner.run(stack.env(), args);

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(second.exitCode()).as(second.err()).isZero();
    assertThat(second.out()).isEqualTo("twice\n");
    assertThat(second.err()).contains("already started").contains("nothing is dispatched again");
    assertThat(third.exitCode()).as(third.err()).isZero();
    assertThat(third.err()).contains("already started");
    assertThat(stack.simulator().stats().postsFor("twice")).isEqualTo(1);
    assertThat(stack.simulator().jobsForOperation("twice")).hasSize(1);
  }

  @Test
  void malformed_input_json_is_a_usage_error_that_says_json() {
    CliRunner.Result result =
        CliRunner.run(stack.env(), "submit", "--model", "image-v1", "--input", "{\"prompt\":");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--input is not valid JSON").contains("Usage: genace submit");
  }

  @Test
  void input_that_is_not_a_json_object_is_a_usage_error() {
    CliRunner.Result result =
        CliRunner.run(stack.env(), "submit", "--model", "image-v1", "--input", "[1, 2]");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--input must be a JSON object");
  }

  @Test
  void an_unreachable_temporal_fails_fast_naming_the_address() {
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("TEMPORAL_ADDRESS", "127.0.0.1:1");
    long started = System.nanoTime();

    CliRunner.Result result = CliRunner.run(env, "submit", "--model", "image-v1", "--input", "{}");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).startsWith("genace: error: cannot reach Temporal at 127.0.0.1:1");
    assertThat(result.err().lines()).hasSize(1);
    assertThat((System.nanoTime() - started) / 1_000_000_000).isLessThan(15);
  }

  @Test
  void a_malformed_temporal_address_names_the_variable() {
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("TEMPORAL_ADDRESS", "no port here");

    CliRunner.Result result = CliRunner.run(env, "submit", "--model", "image-v1", "--input", "{}");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).contains("TEMPORAL_ADDRESS must be host:port");
  }

  @Test
  void a_dispatch_timeout_out_of_range_is_a_usage_error() {
    CliRunner.Result result =
        CliRunner.run(
            stack.env(), "submit", "--model", "m", "--input", "{}", "--dispatch-timeout", "0");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--dispatch-timeout must be between 1 and 1800 seconds");
  }

  @Test
  void a_missing_model_is_a_usage_error() {
    CliRunner.Result result = CliRunner.run(stack.env(), "submit", "--input", "{}");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("Missing required option: '--model=MODEL'");
  }

  @Test
  void the_same_id_with_the_same_input_in_another_key_order_joins_it() {
    CliRunner.Result first =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "image-v1",
            "--operation-id",
            "same-1",
            "--input",
            "{\"prompt\":\"A\",\"seed\":7}");
    CliRunner.Result second =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "image-v1",
            "--operation-id",
            "same-1",
            "--input",
            "{ \"seed\": 7, \"prompt\": \"A\" }");

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(second.exitCode()).as(second.err()).isZero();
    assertThat(second.err()).contains("already started with the same request");
    stack.awaitPhase("same-1", Phase.DELIVERED);
    assertThat(stack.simulator().stats().postsFor("same-1")).isEqualTo(1);
  }

  @Test
  void the_same_id_with_another_input_model_or_account_is_refused_and_changes_nothing() {
    String[] original = {
      "submit", "--model", "image-v1", "--operation-id", "idem-1", "--input", "{\"prompt\":\"A\"}"
    };
    assertThat(CliRunner.run(stack.env(), original).exitCode()).isZero();

    CliRunner.Result otherInput =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "image-v1",
            "--operation-id",
            "idem-1",
            "--input",
            "{\"prompt\":\"B - different\"}");
    CliRunner.Result otherModel =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "video-v1",
            "--operation-id",
            "idem-1",
            "--input",
            "{\"prompt\":\"A\"}");
    CliRunner.Result otherAccount =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "image-v1",
            "--operation-id",
            "idem-1",
            "--input",
            "{\"prompt\":\"A\"}",
            "--account",
            "acme");

    assertThat(otherInput.exitCode()).isEqualTo(1);
    assertThat(otherInput.err())
        .contains("operation idem-1 was started with another request")
        .contains("the input differs");
    assertThat(otherModel.exitCode()).isEqualTo(1);
    assertThat(otherModel.err()).contains("model image-v1 was started, not video-v1");
    assertThat(otherAccount.exitCode()).isEqualTo(1);
    assertThat(otherAccount.err()).contains("account default was started, not acme");
    assertThat(stack.awaitPhase("idem-1", Phase.DELIVERED).requestJson())
        .isEqualTo("{\"prompt\": \"A\"}");
    assertThat(stack.simulator().stats().postsFor("idem-1")).isEqualTo(1);
  }

  @Test
  void input_with_trailing_content_is_refused_not_truncated() {
    for (String input : new String[] {"{\"a\":1}{\"b\":2}", "{\"a\":1} xyz"}) {
      CliRunner.Result result =
          CliRunner.run(stack.env(), "submit", "--model", "image-v1", "--input", input);

      assertThat(result.exitCode()).as(input).isEqualTo(2);
      assertThat(result.err()).as(input).contains("--input is not valid JSON");
    }
  }

  @Test
  void a_model_or_account_over_200_characters_is_a_usage_error() {
    String longName = "m".repeat(201);

    CliRunner.Result model =
        CliRunner.run(stack.env(), "submit", "--model", longName, "--input", "{}");
    CliRunner.Result account =
        CliRunner.run(
            stack.env(), "submit", "--model", "image-v1", "--input", "{}", "--account", longName);

    assertThat(model.exitCode()).isEqualTo(2);
    assertThat(model.err()).contains("--model is longer than 200 characters");
    assertThat(account.exitCode()).isEqualTo(2);
    assertThat(account.err()).contains("--account is longer than 200 characters");
  }

  @Test
  void an_input_over_256_kib_is_a_usage_error_unless_genace_max_input_bytes_allows_it() {
    String input = "{\"prompt\":\"" + "x".repeat(300 * 1024) + "\"}";

    CliRunner.Result refused =
        CliRunner.run(
            stack.env(),
            "submit",
            "--model",
            "image-v1",
            "--input",
            input,
            "--operation-id",
            "op-big-input");

    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .contains(
            "--input is " + input.length() + " bytes; at most 262144 (GENACE_MAX_INPUT_BYTES");
    assertThat(stack.ledger().find("op-big-input")).as("nothing started").isEmpty();

    Map<String, String> env = new HashMap<>(stack.env());
    env.put("GENACE_MAX_INPUT_BYTES", Integer.toString(512 * 1024));
    CliRunner.Result accepted =
        CliRunner.run(
            env,
            "submit",
            "--model",
            "image-v1",
            "--input",
            input,
            "--operation-id",
            "op-big-input");

    assertThat(accepted.exitCode()).as(accepted.err()).isZero();
    assertThat(stack.awaitPhase("op-big-input", Phase.DELIVERED).phase())
        .isEqualTo(Phase.DELIVERED);
  }

  @Test
  void a_genace_max_input_bytes_over_the_ceiling_names_the_variable() {
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("GENACE_MAX_INPUT_BYTES", "5000000");

    CliRunner.Result result = CliRunner.run(env, "submit", "--model", "image-v1", "--input", "{}");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err())
        .contains("GENACE_MAX_INPUT_BYTES must be a number of bytes between 1 and 1048576");
  }

  @Test
  void an_operation_id_too_long_for_an_object_key_is_a_usage_error() {
    String id = "\u20ac".repeat(150);

    CliRunner.Result result =
        CliRunner.run(
            stack.env(), "submit", "--model", "image-v1", "--input", "{}", "--operation-id", id);

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("--operation-id is 1350 bytes as an object key segment (percent-encoded)")
        .contains("S3's 1,024 bytes");
  }

  @Test
  void a_model_outside_the_configured_cost_table_is_a_usage_error_naming_the_table() {
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("GENACE_MODEL_COSTS", "image-v1=2,video-v1=30");

    CliRunner.Result result =
        CliRunner.run(
            env, "submit", "--model", "audio-v9", "--input", "{}", "--operation-id", "op-nocost");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains(
            "--model 'audio-v9' is not in the cost table (GENACE_MODEL_COSTS: image-v1, video-v1)");
    assertThat(stack.ledger().find("op-nocost")).as("nothing started").isEmpty();
  }
}
