package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.WorkerProcess;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.TestEnvironment;
import com.genace.worker.temporal.TemporalTarget;
import io.temporal.testing.TestWorkflowEnvironment;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The roles per duty of migration V22, each used by a login granted that role alone: what it can
 * do, and what PostgreSQL refuses it ({@code 42501}, insufficient privilege).
 */
@ExtendWith(DatabaseExtension.class)
class LedgerRolesTest {

  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  @TempDir Path artifacts;

  @Test
  void genace_read_runs_list_show_and_spend_and_can_change_nothing(DataSource owner) {
    OperationsLedger ledger = new OperationsLedger(owner);
    assertThat(ledger.create(new NewOperation("op-read", "image-v1", "{\"prompt\":\"a fox\"}")))
        .isTrue();
    Map<String, String> env = Map.of("DATABASE_URL", TestDatabase.loginWith("genace_read"));

    CliRunner.Result list = CliRunner.run(env, "ops", "list");
    CliRunner.Result show = CliRunner.run(env, "ops", "show", "op-read", "--json");
    CliRunner.Result spend = CliRunner.run(env, "ops", "spend", "--since", "1h");
    CliRunner.Result pause = CliRunner.run(env, "ops", "pause-dispatch", "--reason", "try");
    CliRunner.Result accounts = CliRunner.run(env, "ops", "accounts", "list");
    CliRunner.Result cap =
        CliRunner.run(env, "ops", "accounts", "set", "default", "--max-in-flight", "1");

    assertThat(accounts.exitCode()).as(accounts.err()).isZero();
    assertThat(cap.exitCode()).as("a reader cannot cap an account").isNotZero();
    assertThat(cap.err()).contains("permission denied");
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.out()).contains("op-read");
    assertThat(show.exitCode()).as(show.err()).isZero();
    assertThat(show.out()).contains("op-read", "a fox");
    assertThat(spend.exitCode()).as(spend.err()).isZero();
    assertThat(pause.exitCode()).as("a reader cannot pause the fleet").isNotZero();
    assertThat(pause.err()).contains("permission denied");
    assertRefused(env, "UPDATE app_generation_operations SET model = 'x'");
    assertRefused(env, "DELETE FROM app_generation_transitions");
    assertRefused(
        env,
        "INSERT INTO app_worker_controls (name, enabled, changed_by) VALUES ('x', true, 'me')");
    assertThat(ledger.get("op-read").model()).isEqualTo("image-v1");
  }

  @Test
  void genace_operate_pauses_resumes_and_sets_the_config_version_but_cannot_touch_operations(
      DataSource owner) {
    OperationsLedger ledger = new OperationsLedger(owner);
    assertThat(ledger.create(new NewOperation("op-operate", "image-v1", "{}"))).isTrue();
    Map<String, String> env = Map.of("DATABASE_URL", TestDatabase.loginWith("genace_operate"));

    CliRunner.Result pause = CliRunner.run(env, "ops", "pause-dispatch", "--reason", "incident");
    CliRunner.Result resume = CliRunner.run(env, "ops", "resume-dispatch", "--reason", "over");
    CliRunner.Result version = CliRunner.run(env, "ops", "set-config-version", "v7");
    CliRunner.Result list = CliRunner.run(env, "ops", "list");
    CliRunner.Result cap =
        CliRunner.run(env, "ops", "accounts", "set", "default", "--max-in-flight", "3");

    assertThat(cap.exitCode()).as(cap.err()).isZero();
    assertThat(pause.exitCode()).as(pause.err()).isZero();
    assertThat(resume.exitCode()).as(resume.err()).isZero();
    assertThat(version.exitCode()).as(version.err()).isZero();
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertRefused(env, "UPDATE app_generation_operations SET phase = 'abandoned'");
    assertRefused(env, "DELETE FROM app_generation_operations");
    assertRefused(env, "CREATE TABLE app_mine (id int)");
    assertThat(ledger.get("op-operate").phase()).isEqualTo(Phase.PENDING);
  }

  @Test
  void genace_worker_runs_a_whole_worker_and_has_no_ddl() throws Exception {
    String workerUrl = TestDatabase.loginWith("genace_worker");
    try (TestWorkflowEnvironment temporal = TestWorkflowEnvironment.newInstance();
        GenaceSimulator simulator = GenerationHarness.simulator()) {
      GenerationHarness.registerSearchAttributes(temporal);
      Map<String, String> env =
          new HashMap<>(TestEnvironment.worker(simulator.baseUrl(), artifacts));
      env.put("DATABASE_URL", workerUrl);
      env.put("GENACE_DRAIN_SECONDS", "1");
      try (WorkerProcess worker =
          new WorkerProcess(
              WorkerConfig.fromEnvironment(env),
              TemporalTarget.sameChannelAs(temporal.getWorkflowServiceStubs(), "in-process"),
              Clock.systemUTC())) {
        worker.start();
        new GenerationClient(temporal.getWorkflowClient())
            .start(new GenerationRequest("op-as-worker", "image-v1", "{\"prompt\":\"a fox\"}"));

        OperationsLedger asOwner = new OperationsLedger(TestDatabase.dataSource());
        Awaitility.await()
            .atMost(Duration.ofMinutes(1))
            .until(
                () ->
                    asOwner
                        .find("op-as-worker")
                        .map(r -> r.phase() == Phase.DELIVERED)
                        .orElse(false));
        assertThat(simulator.stats().postsFor("op-as-worker")).isEqualTo(1);
      }
    }
    Map<String, String> env = Map.of("DATABASE_URL", workerUrl);
    assertRefused(env, "CREATE TABLE app_mine (id int)");
    assertRefused(env, "ALTER TABLE app_generation_operations ADD COLUMN mine int");
    assertRefused(env, "DROP TABLE app_worker_controls");
    assertRefused(env, "TRUNCATE app_generation_transitions");
    assertRefused(env, "DELETE FROM flyway_schema_history");
  }

  /** {@code sql} run as the login of {@code env}'s DATABASE_URL is refused for its privileges. */
  private static void assertRefused(Map<String, String> env, String sql) {
    assertThatThrownBy(
            () -> {
              try (Connection connection = DriverManager.getConnection(env.get("DATABASE_URL"));
                  Statement statement = connection.createStatement()) {
                statement.execute(sql);
              }
            })
        .as(sql)
        .isInstanceOfSatisfying(
            SQLException.class,
            e -> assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo(INSUFFICIENT_PRIVILEGE));
  }
}
