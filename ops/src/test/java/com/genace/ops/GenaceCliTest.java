package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.ops.support.CliRunner;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GenaceCliTest {

  @Test
  void help_lists_every_command() {
    CliRunner.Result result = CliRunner.run(Map.of(), "--help");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .contains("demo")
        .contains("dev")
        .contains("submit")
        .contains("ops")
        .contains("db")
        .contains("simulator");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "demo",
        "dev",
        "submit",
        "simulator",
        "ops list",
        "ops show",
        "ops resolve",
        "ops cancel",
        "ops pause-dispatch",
        "ops resume-dispatch"
      })
  void every_command_has_help(String command) {
    String[] args = (command + " --help").split(" ");

    CliRunner.Result result = CliRunner.run(Map.of(), args);

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).startsWith("Usage: genace " + command);
  }

  @Test
  void ops_without_a_command_is_a_usage_error() {
    CliRunner.Result result = CliRunner.run(Map.of(), "ops");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("missing command").contains("Usage: genace ops");
  }

  @Test
  void an_unknown_option_is_a_usage_error() {
    CliRunner.Result result = CliRunner.run(Map.of(), "demo", "--frobnicate");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("Unknown option: '--frobnicate'")
        .contains("Usage: genace demo");
  }
}
