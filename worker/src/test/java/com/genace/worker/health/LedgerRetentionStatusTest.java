package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.worker.config.WorkerConfig;
import com.genace.workflows.lifecycle.RetentionReport;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What this worker's retention passes deleted shows on /status and in the metrics. */
class LedgerRetentionStatusTest {

  private static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://app:db-pass@db.internal:5432/genace");
    env.put("GENACE_BASE_URL", "https://api.genace.example");
    env.put("GENACE_API_KEY", "sk-secret");
    env.put("GENACE_LEDGER_RETENTION_DAYS", "30");
    return env;
  }

  @Test
  void the_last_retention_pass_and_the_deleted_total_show_on_status_and_in_metrics() {
    WorkerConfig config = WorkerConfig.fromEnvironment(env());
    WorkerState state = new WorkerState(Clock.systemUTC(), 1);
    WorkerMetrics metrics = new WorkerMetrics(state, config);
    try {
      JsonNode before = StatusDocument.of(config, state, metrics).path("ledger_retention");
      assertThat(before.path("retention_days").asInt()).isEqualTo(30);
      assertThat(before.get("last_pass").isNull()).as("no pass run here yet").isTrue();
      assertThat(metrics.scrape()).contains("genace_retention_pass_seconds NaN");

      state.retentionSchedule("created, every 900 s");
      state.retentionPassEnded(
          new RetentionReport(400, 2_800, 12, 400, 3, 1, 900, true, 2_592_000));
      state.retentionPassEnded(
          new RetentionReport(500, 3_500, 15, 500, 2, 2, 1_250, false, 2_592_000));

      JsonNode retention = StatusDocument.of(config, state, metrics).path("ledger_retention");
      assertThat(retention.path("schedule").asText()).isEqualTo("created, every 900 s");
      assertThat(retention.path("operations_deleted").asLong()).isEqualTo(900);
      JsonNode pass = retention.path("last_pass");
      assertThat(pass.path("window_days").asDouble()).isEqualTo(30.0);
      assertThat(pass.path("operations_deleted").asLong()).isEqualTo(500);
      assertThat(pass.path("transitions_deleted").asLong()).isEqualTo(3_500);
      assertThat(pass.path("evidence_deleted").asLong()).isEqualTo(15);
      assertThat(pass.path("reservations_deleted").asLong()).isEqualTo(500);
      assertThat(pass.path("kept_for_allowance").asLong()).isEqualTo(2);
      assertThat(pass.path("batches").asInt()).isEqualTo(2);
      assertThat(pass.path("seconds").asDouble()).isEqualTo(1.25);
      assertThat(pass.path("complete").asBoolean()).isFalse();
      assertThat(pass.path("ended_at").asText()).isNotBlank();
      assertThat(metrics.scrape())
          .contains("genace_retention_deleted_operations_total 900.0")
          .contains("genace_retention_last_pass_deleted 500.0")
          .contains("genace_retention_pass_seconds 1.25");
    } finally {
      metrics.close();
    }
  }
}
