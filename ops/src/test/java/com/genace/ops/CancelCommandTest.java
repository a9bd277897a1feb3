package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.StackFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(DatabaseExtension.class)
class CancelCommandTest {

  @RegisterExtension static final StackFixture stack = new StackFixture();

  @Test
  void a_rendering_operation_is_cancelled_and_show_says_by_whom_and_why() {
    stack.simulator().setFaults(stack.simulator().faults().withJobDurationMs(600_000));
    stack.submit("cli-cancel");
    String job = stack.awaitPhase("cli-cancel", Phase.OBSERVING).remoteJobId().orElseThrow();

    CliRunner.Result cancel =
        CliRunner.run(
            stack.env(),
            "ops",
            "cancel",
            "cli-cancel",
            "--reason",
            "customer cancelled the order",
            "--by",
            "alice");
    stack.awaitPhase("cli-cancel", Phase.ABANDONED);
    CliRunner.Result again =
        CliRunner.run(stack.env(), "ops", "cancel", "cli-cancel", "--reason", "twice");
    CliRunner.Result show = CliRunner.run(stack.env(), "ops", "show", "cli-cancel");

    assertThat(cancel.exitCode()).as(cancel.err()).isZero();
    assertThat(cancel.out())
        .isEqualTo(
            "operation cli-cancel: cancelling from phase observing: cancelled by alice: customer"
                + " cancelled the order\n");
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err())
        .isEqualTo(
            "genace: error: operation cli-cancel has already ended abandoned (cancelled by alice:"
                + " customer cancelled the order)\n");
    assertThat(show.out())
        .contains(
            "why         cancelled by alice: customer cancelled the order from phase observing")
        .contains("remote job  " + job)
        .containsPattern("(?m)^cancel +requested at .+ by alice: customer cancelled the order$");
    assertThat(stack.simulator().stats().postsFor("cli-cancel")).isEqualTo(1);
  }

  @Test
  void cancelling_an_unknown_operation_exits_1_and_a_blank_reason_exits_2() {
    CliRunner.Result unknown =
        CliRunner.run(stack.env(), "ops", "cancel", "ghost", "--reason", "x");
    CliRunner.Result blank = CliRunner.run(stack.env(), "ops", "cancel", "ghost", "--reason", " ");

    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).isEqualTo("genace: error: unknown operation 'ghost'\n");
    assertThat(blank.exitCode()).isEqualTo(2);
    assertThat(blank.err()).contains("--reason must not be blank");
  }
}
