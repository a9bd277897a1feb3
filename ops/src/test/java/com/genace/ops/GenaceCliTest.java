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

  @Test
  void version_names_the_release_and_the_commit_of_the_build() throws Exception {
    CliRunner.Result result = CliRunner.run(Map.of(), "--version");

    assertThat(result.exitCode()).isZero();
    // The tests run from a git checkout, so the build knows its commit. CI runs them as root in a
    // checkout another user owns, which git refuses to read without safe.directory.
    Process git =
        new ProcessBuilder("git", "-c", "safe.directory=*", "rev-parse", "HEAD")
            .redirectErrorStream(true)
            .start();
    String head = new String(git.getInputStream().readAllBytes()).trim();
    assertThat(git.waitFor()).as("git rev-parse HEAD: " + head).isZero();
    assertThat(result.out().trim())
        .matches("genace \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit [0-9a-f]{12}\\)")
        .contains(head.substring(0, 12));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "demo",
        "dev",
        "submit",
        "simulator",
        "codec-server",
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
