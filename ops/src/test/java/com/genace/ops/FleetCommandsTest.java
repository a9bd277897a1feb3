package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.ops.support.CliRunner;
import com.genace.worker.fleet.FleetConfiguration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ops set-config-version}, and {@code worker} refusing settings that cannot work: one line,
 * exit 1, naming the variable, before anything starts.
 */
@ExtendWith(DatabaseExtension.class)
class FleetCommandsTest {

  private final Map<String, String> env = Map.of("DATABASE_URL", TestDatabase.databaseUrlValue());

  @Test
  void set_config_version_makes_the_version_the_fleets_durably() {
    CliRunner.Result first =
        CliRunner.run(env, "ops", "set-config-version", "2024-06-01.1", "--by", "alice");
    CliRunner.Result second =
        CliRunner.run(
            env, "ops", "set-config-version", "2024-06-02.1", "--by", "bob", "--reason", "costs");

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out())
        .startsWith("fleet configuration version: 2024-06-01.1 (set by alice at ")
        .contains("workers deployed with another GENACE_CONFIG_VERSION stop taking dispatch");
    assertThat(second.exitCode()).as(second.err()).isZero();
    var current = new FleetConfiguration(TestDatabase.dataSource()).current().orElseThrow();
    assertThat(current.version()).isEqualTo("2024-06-02.1");
    assertThat(current.changedBy()).isEqualTo("bob");
    assertThat(current.reason()).isEqualTo("costs");
  }

  @Test
  void a_malformed_version_is_a_usage_error_and_changes_nothing() {
    CliRunner.Result result = CliRunner.run(env, "ops", "set-config-version", "two words");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).startsWith("VERSION: a configuration version is 1 to 100");
    assertThat(new FleetConfiguration(TestDatabase.dataSource()).current()).isEmpty();
  }

  private static Map<String, String> worker() {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://app:db-pass@127.0.0.1:1/genace");
    env.put("GENACE_BASE_URL", "http://127.0.0.1:1");
    env.put("GENACE_API_KEY", "sk-secret");
    return env;
  }

  @Test
  void worker_refuses_a_lease_shorter_than_the_read_timeout_in_one_line() {
    Map<String, String> env = worker();
    env.put("GENACE_LEASE_SECONDS", "10");
    env.put("GENACE_READ_TIMEOUT_SECONDS", "40");

    CliRunner.Result result = CliRunner.run(env, "worker");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("genace: error: GENACE_LEASE_SECONDS (10) must be at least")
        .hasLineCount(1)
        .doesNotContain("db-pass", "sk-secret");
  }

  @Test
  void worker_refuses_an_identity_beyond_the_ledgers_limit_in_one_line() {
    Map<String, String> env = worker();
    env.put("GENACE_WORKER_ID", "w".repeat(5000));

    CliRunner.Result result = CliRunner.run(env, "worker");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("genace: error: GENACE_WORKER_ID must be at most 200 characters")
        .hasLineCount(1);
  }
}
