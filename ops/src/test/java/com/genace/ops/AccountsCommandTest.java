package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.StackFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ops accounts}: a cap set on an account holds its next dispatch pending (no POST) while its
 * render is in flight, and lets it go once the render ends; bad input changes nothing.
 */
@ExtendWith(DatabaseExtension.class)
class AccountsCommandTest {

  @RegisterExtension static final StackFixture stack = new StackFixture();

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void bad_input_is_refused_and_changes_nothing() throws Exception {
    CliRunner.Result unknown =
        stack.cli("ops", "accounts", "set", "nobody", "--max-in-flight", "1");
    CliRunner.Result negative =
        stack.cli("ops", "accounts", "set", "nobody", "--new", "--max-in-flight", "-1");
    CliRunner.Result nothing = stack.cli("ops", "accounts", "set", "nobody", "--new");
    CliRunner.Result both =
        stack.cli("ops", "accounts", "set", "nobody", "--new", "--max-in-flight", "1", "--no-cap");
    CliRunner.Result zeroWeight =
        stack.cli("ops", "accounts", "set", "nobody", "--new", "--weight", "0");
    CliRunner.Result hugeWeight =
        stack.cli("ops", "accounts", "set", "nobody", "--new", "--weight", "1001");
    CliRunner.Result bothWeights =
        stack.cli("ops", "accounts", "set", "nobody", "--new", "--weight", "2", "--default-weight");
    CliRunner.Result listed = stack.cli("ops", "accounts", "list", "--json");

    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("account nobody has no operation in the ledger");
    assertThat(negative.exitCode()).isEqualTo(2);
    assertThat(negative.err()).contains("--max-in-flight is 0 or more");
    assertThat(nothing.exitCode()).isEqualTo(2);
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(zeroWeight.exitCode()).isEqualTo(2);
    assertThat(zeroWeight.err()).contains("--weight is from 0.001 to 1000, not 0.0");
    assertThat(hugeWeight.exitCode()).isEqualTo(2);
    assertThat(hugeWeight.err()).contains("not 1001.0");
    assertThat(bothWeights.exitCode()).isEqualTo(2);
    assertThat(JSON.readTree(listed.out()).get("accounts")).isEmpty();
  }

  @Test
  void a_dispatch_over_its_account_s_cap_waits_without_a_post_and_goes_once_the_render_ends()
      throws Exception {
    stack.simulator().setFaults(stack.simulator().faults().withJobDurationMs(4000));
    try {
      CliRunner.Result set =
          stack.cli("ops", "accounts", "set", "default", "--new", "--max-in-flight", "1");
      assertThat(set.exitCode()).as(set.err()).isZero();
      assertThat(set.out()).contains("account default: at most 1 render(s) in flight");

      stack.submit("cap-first");
      stack.awaitPhase("cap-first", Phase.OBSERVING);
      stack.submit("cap-second");

      // Its first render lasts 4 s: meanwhile the second waits, pending, without a POST.
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(3))
          .until(
              () ->
                  stack
                          .ledger()
                          .find("cap-second")
                          .map(r -> r.phase() == Phase.PENDING)
                          .orElse(true)
                      && stack.simulator().stats().postsFor("cap-second") == 0);
      JsonNode listed = JSON.readTree(stack.cli("ops", "accounts", "list", "--json").out());
      assertThat(listed.at("/accounts/0/account").asText()).isEqualTo("default");
      assertThat(listed.at("/accounts/0/max_in_flight").asInt()).isEqualTo(1);
      assertThat(listed.at("/accounts/0/in_flight").asInt()).isEqualTo(1);

      stack.awaitPhase("cap-first", Phase.DELIVERED);
      stack.awaitPhase("cap-second", Phase.DELIVERED);
      assertThat(stack.simulator().stats().postsFor("cap-second")).isEqualTo(1);
    } finally {
      stack.cli("ops", "accounts", "set", "default", "--no-cap");
      stack.simulator().setFaults(stack.simulator().faults().withJobDurationMs(0));
    }
  }

  @Test
  void a_weight_is_kept_in_the_ledger_and_said_plainly_when_temporal_cannot_take_it()
      throws Exception {
    // The Java test server has no task-queue configuration: the weight stays in the ledger, for
    // every worker to write to Temporal when it starts (RealTemporalFairnessTest, on a real
    // server).
    CliRunner.Result set =
        stack.cli(
            "ops", "accounts", "set", "shop", "--new", "--max-in-flight", "2", "--weight", "3");

    assertThat(set.exitCode()).isEqualTo(1);
    assertThat(set.out()).contains("account shop: at most 2 render(s) in flight");
    assertThat(set.err())
        .contains(
            "account shop: fairness weight 3.0 is in the ledger, but Temporal did not take it")
        .contains("every worker writes the ledger's weights to Temporal when it starts");
    JsonNode listed = JSON.readTree(stack.cli("ops", "accounts", "list", "--json").out());
    assertThat(listed.at("/accounts/0/account").asText()).isEqualTo("shop");
    assertThat(listed.at("/accounts/0/max_in_flight").asInt()).isEqualTo(2);
    assertThat(listed.at("/accounts/0/fairness_weight").asDouble()).isEqualTo(3.0);

    stack.cli("ops", "accounts", "set", "shop", "--default-weight", "--no-cap");
    listed = JSON.readTree(stack.cli("ops", "accounts", "list", "--json").out());
    assertThat(listed.at("/accounts/0/fairness_weight").isNull()).isTrue();
    assertThat(listed.at("/accounts/0/max_in_flight").isNull()).isTrue();
  }
}
