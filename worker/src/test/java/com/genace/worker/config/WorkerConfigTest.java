package com.genace.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.delivery.S3Timeouts;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.observation.PollingPolicy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerConfigTest {

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://app:db-pass@db.internal:5432/genace");
    env.put("GENACE_BASE_URL", "https://api.genace.example");
    env.put("GENACE_API_KEY", "sk-secret");
    return env;
  }

  @Test
  void unset_variables_take_the_documented_defaults_and_secrets_never_show() {
    WorkerConfig config = WorkerConfig.fromEnvironment(minimal());

    assertThat(config.temporalAddress()).isEqualTo("127.0.0.1:7233");
    assertThat(config.temporalNamespace()).isEqualTo("default");
    assertThat(config.statusAddress().getPort()).isEqualTo(8686);
    assertThat(config.leaseDuration()).isEqualTo(Duration.ofSeconds(45));
    assertThat(config.workflowCacheSize()).isEqualTo(150);
    assertThat(config.taskPollers()).isEqualTo(10);
    assertThat(config.polling()).isEqualTo(PollingPolicy.DEFAULT);
    assertThat(config.workerId()).endsWith("-" + ProcessHandle.current().pid());
    assertThat(config.toString()).doesNotContain("sk-secret").doesNotContain("db-pass");
  }

  @Test
  void each_missing_or_malformed_setting_is_named() {
    assertMessage("DATABASE_URL", null, "DATABASE_URL is not set");
    assertMessage("DATABASE_URL", "mysql://x", "DATABASE_URL is invalid");
    assertMessage("GENACE_BASE_URL", "ftp://x", "GENACE_BASE_URL must be an http(s) URL");
    assertMessage("GENACE_API_KEY", " ", "GENACE_API_KEY is not set");
    assertMessage("GENACE_STATUS_ADDR", "nowhere", "GENACE_STATUS_ADDR must be host:port");
    assertMessage("GENACE_DRAIN_SECONDS", "soon", "GENACE_DRAIN_SECONDS must be a whole number");
    assertMessage("TEMPORAL_ADDRESS", "localhost", "TEMPORAL_ADDRESS must be host:port");
    assertMessage("TEMPORAL_TLS", "maybe", "TEMPORAL_TLS must be true or false");
    assertMessage(
        "GENACE_WORKER_ID", "w".repeat(5000), "GENACE_WORKER_ID must be at most 200 characters");
    assertMessage(
        "GENACE_CONFIG_VERSION", "two words", "GENACE_CONFIG_VERSION: a configuration version is");
    assertMessage(
        "GENACE_CONFIG_VERSION", "v".repeat(101), "GENACE_CONFIG_VERSION: a configuration version");
    assertMessage("GENACE_TASK_POLLERS", "1", "GENACE_TASK_POLLERS must be");
    assertMessage("GENACE_POLL_MAX_SECONDS", "0", "GENACE_POLL_MAX_SECONDS must be");
  }

  @Test
  void the_slowest_poll_pace_is_configurable_and_keeps_the_rest_of_the_policy() {
    Map<String, String> env = minimal();
    env.put("GENACE_POLL_MAX_SECONDS", "60");

    PollingPolicy polling = WorkerConfig.fromEnvironment(env).polling();

    assertThat(polling.maxDelay()).isEqualTo(Duration.ofSeconds(60));
    assertThat(polling.initialDelay()).isEqualTo(PollingPolicy.DEFAULT.initialDelay());
    assertThat(polling.jitter()).isEqualTo(PollingPolicy.DEFAULT.jitter());
    assertThat(WorkerConfig.pollMaxDelay(env)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void a_lease_that_leaves_no_time_to_send_and_record_a_post_is_refused_with_the_fix() {
    Map<String, String> env = minimal();
    env.put("GENACE_LEASE_SECONDS", "10");
    env.put("GENACE_READ_TIMEOUT_SECONDS", "40");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "GENACE_LEASE_SECONDS (10) must be at least GENACE_READ_TIMEOUT_SECONDS (40) +"
                + " GENACE_RECORDING_MARGIN_SECONDS (3) + 1: a POST leaves only while its claim"
                + " time, its read timeout and the margin to record its answer still lie inside"
                + " its lease, with at least 1 s to send in; raise GENACE_LEASE_SECONDS to 44 or"
                + " lower GENACE_READ_TIMEOUT_SECONDS to 6 or GENACE_RECORDING_MARGIN_SECONDS");

    env.put("GENACE_LEASE_SECONDS", "45");
    assertThat(WorkerConfig.fromEnvironment(env).leaseDuration()).hasSeconds(45);
  }

  @Test
  void a_recording_margin_that_fills_the_rest_of_the_lease_is_refused() {
    Map<String, String> env = minimal();
    env.put("GENACE_RECORDING_MARGIN_SECONDS", "15");

    // 45 s lease - 30 s read timeout - 15 s margin: a POST could never leave.
    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "GENACE_LEASE_SECONDS (45) must be at least GENACE_READ_TIMEOUT_SECONDS (30) +"
                + " GENACE_RECORDING_MARGIN_SECONDS (15) + 1")
        .hasMessageEndingWith(
            "raise GENACE_LEASE_SECONDS to 46 or lower GENACE_READ_TIMEOUT_SECONDS to 29 or"
                + " GENACE_RECORDING_MARGIN_SECONDS");

    env.put("GENACE_RECORDING_MARGIN_SECONDS", "14");
    assertThat(WorkerConfig.fromEnvironment(env).sendWindow().sendWithin(Duration.ofSeconds(45)))
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void a_post_may_leave_while_the_read_timeout_and_recording_margin_fit_in_the_rest_of_the_lease() {
    WorkerConfig defaults = WorkerConfig.fromEnvironment(minimal());
    assertThat(defaults.sendWindow())
        .isEqualTo(new SendWindow(Duration.ofSeconds(30), Duration.ofSeconds(3)));
    assertThat(defaults.sendWindow().sendWithin(defaults.leaseDuration()))
        .isEqualTo(Duration.ofSeconds(12));

    // The fault drills' short leases (ops DrillStack) still leave 2 s to send in.
    Map<String, String> drills = minimal();
    drills.put("GENACE_LEASE_SECONDS", "8");
    drills.put("GENACE_READ_TIMEOUT_SECONDS", "3");
    WorkerConfig drill = WorkerConfig.fromEnvironment(drills);
    assertThat(drill.sendWindow().sendWithin(drill.leaseDuration()))
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void every_network_wait_has_a_documented_default_deadline() {
    WorkerConfig config = WorkerConfig.fromEnvironment(minimal());

    GenaceClientConfig genace = config.genaceClientConfig();
    assertThat(genace.readTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(genace.downloadStallTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(genace.downloadDeadline()).isEqualTo(Duration.ofMinutes(30));
    assertThat(config.s3Timeouts())
        .isEqualTo(new S3Timeouts(Duration.ofSeconds(30), Duration.ofMinutes(2)));
    assertThat(genace.toString()).doesNotContain("sk-secret");
  }

  @Test
  void the_deadlines_are_configurable() {
    Map<String, String> env = minimal();
    env.put("GENACE_READ_TIMEOUT_SECONDS", "10");
    env.put("GENACE_DOWNLOAD_STALL_SECONDS", "20");
    env.put("GENACE_DOWNLOAD_MAX_SECONDS", "600");
    env.put("GENACE_S3_STALL_SECONDS", "15");
    env.put("GENACE_S3_REQUEST_SECONDS", "300");

    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.genaceClientConfig().readTimeout()).hasSeconds(10);
    assertThat(config.genaceClientConfig().downloadStallTimeout()).hasSeconds(20);
    assertThat(config.genaceClientConfig().downloadDeadline()).hasSeconds(600);
    assertThat(config.genaceClientConfig().baseUrl()).hasToString("https://api.genace.example");
    assertThat(config.s3Timeouts())
        .isEqualTo(new S3Timeouts(Duration.ofSeconds(15), Duration.ofSeconds(300)));
  }

  @Test
  void a_zero_negative_or_too_large_deadline_is_refused_with_its_range() {
    String[][] cases = {
      {"GENACE_READ_TIMEOUT_SECONDS", "from 1 to 600"},
      {"GENACE_DOWNLOAD_STALL_SECONDS", "from 1 to 45"},
      {"GENACE_DOWNLOAD_MAX_SECONDS", "from 1 to 86400"},
      {"GENACE_S3_STALL_SECONDS", "from 1 to 45"},
      {"GENACE_S3_REQUEST_SECONDS", "from 1 to 3600"},
      {"GENACE_RECORDING_MARGIN_SECONDS", "from 1 to 60"},
    };
    for (String[] c : cases) {
      String tooLarge = Integer.toString(Integer.parseInt(c[1].substring(10)) + 1);
      for (String value : new String[] {"0", "-5", tooLarge, "1.5", "30s"}) {
        Map<String, String> env = minimal();
        env.put(c[0], value);
        assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
            .as("%s=%s", c[0], value)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(c[0] + " must be a whole number " + c[1]);
      }
    }
  }

  @Test
  void the_waiting_too_long_limits_default_to_six_hours_and_one_hour_and_are_configurable() {
    assertThat(WorkerConfig.fromEnvironment(minimal()).waitLimits())
        .isEqualTo(new WaitLimits(Duration.ofHours(6), Duration.ofHours(1)));
    Map<String, String> env = minimal();
    env.put("GENACE_OBSERVING_TOO_LONG_SECONDS", "7200");
    env.put("GENACE_DELIVERING_TOO_LONG_SECONDS", "600");

    assertThat(WorkerConfig.fromEnvironment(env).waitLimits())
        .isEqualTo(new WaitLimits(Duration.ofHours(2), Duration.ofMinutes(10)));
    for (String name :
        new String[] {"GENACE_OBSERVING_TOO_LONG_SECONDS", "GENACE_DELIVERING_TOO_LONG_SECONDS"}) {
      for (String value : new String[] {"0", "59", "2592001", "6h", "-1"}) {
        Map<String, String> bad = minimal();
        bad.put(name, value);
        assertThatThrownBy(() -> WorkerConfig.fromEnvironment(bad))
            .as("%s=%s", name, value)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(name + " must be a whole number from 60 to 2592000");
      }
    }
  }

  @Test
  void ended_operations_are_kept_ninety_days_unless_configured_and_zero_keeps_everything() {
    assertThat(WorkerConfig.fromEnvironment(minimal()).ledgerRetentionDays()).isEqualTo(90);
    for (String days : new String[] {"0", "1", "3650"}) {
      Map<String, String> env = minimal();
      env.put("GENACE_LEDGER_RETENTION_DAYS", days);
      assertThat(WorkerConfig.fromEnvironment(env).ledgerRetentionDays())
          .isEqualTo(Integer.parseInt(days));
    }
    for (String value : new String[] {"-1", "3651", "90d", "1.5"}) {
      assertMessage(
          "GENACE_LEDGER_RETENTION_DAYS",
          value,
          "GENACE_LEDGER_RETENTION_DAYS must be a whole number from 0 to 3650");
    }
  }

  @Test
  void the_configuration_version_is_optional_and_shown_without_secrets() {
    assertThat(WorkerConfig.fromEnvironment(minimal()).configVersion()).isEmpty();
    Map<String, String> env = minimal();
    env.put("GENACE_CONFIG_VERSION", "2024-06-01.1");

    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.configVersion()).contains("2024-06-01.1");
    assertThat(config.toString())
        .contains("configVersion=2024-06-01.1")
        .doesNotContain("sk-secret");
  }

  @Test
  void reviews_settle_themselves_unless_turned_off() {
    assertThat(WorkerConfig.fromEnvironment(minimal()).review().autoReconcile()).isTrue();
    assertThat(WorkerConfig.fromEnvironment(minimal()).review().searchWindow()).hasSeconds(10);
    Map<String, String> env = minimal();
    env.put("GENACE_AUTO_RECONCILE", "false");
    env.put("GENACE_EVIDENCE_SEARCH_SECONDS", "3");

    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.review().autoReconcile()).isFalse();
    assertThat(config.review().searchWindow()).hasSeconds(3);
    assertMessage("GENACE_AUTO_RECONCILE", "no", "GENACE_AUTO_RECONCILE must be true or false");
  }

  private static void assertMessage(String variable, String value, String message) {
    Map<String, String> env = minimal();
    if (value == null) {
      env.remove(variable);
    } else {
      env.put(variable, value);
    }
    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("db-pass", "sk-secret"));
  }
}
