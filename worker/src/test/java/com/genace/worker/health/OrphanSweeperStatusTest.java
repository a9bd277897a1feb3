package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.worker.config.WorkerConfig;
import com.genace.workflows.lifecycle.SweepReport;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The orphans this worker's sweeps found are counted, and its last sweep pass shown, on /status and
 * in the metrics.
 */
class OrphanSweeperStatusTest {

  private static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://app:db-pass@db.internal:5432/genace");
    env.put("GENACE_BASE_URL", "https://api.genace.example");
    env.put("GENACE_API_KEY", "sk-secret");
    return env;
  }

  @Test
  void orphans_found_show_on_status_and_in_metrics() {
    Map<String, String> env = env();
    env.put("GENACE_SWEEP_SECONDS", "7");
    WorkerConfig config = WorkerConfig.fromEnvironment(env);
    WorkerState state = new WorkerState(Clock.systemUTC(), 1);
    WorkerMetrics metrics = new WorkerMetrics(state, config);
    try {
      state.orphanFound("op-1", "TERMINATED");
      state.orphanFound("op-2", "TIMED_OUT");
      state.sweepSchedule("created, every 7 s");

      JsonNode sweeper = StatusDocument.of(config, state, metrics).path("orphan_sweeper");

      assertThat(sweeper.path("orphans_found").asLong()).isEqualTo(2);
      assertThat(sweeper.path("interval_seconds").asLong()).isEqualTo(7);
      assertThat(sweeper.path("schedule").asText()).isEqualTo("created, every 7 s");
      assertThat(metrics.scrape()).contains("genace_orphans_found_total 2.0");
    } finally {
      metrics.close();
    }
  }

  @Test
  void the_last_sweep_pass_shows_on_status_and_in_metrics() {
    WorkerConfig config = WorkerConfig.fromEnvironment(env());
    WorkerState state = new WorkerState(Clock.systemUTC(), 1);
    WorkerMetrics metrics = new WorkerMetrics(state, config);
    try {
      JsonNode before =
          StatusDocument.of(config, state, metrics).path("orphan_sweeper").get("last_pass");
      assertThat(before.isNull()).as("no pass run here yet").isTrue();
      assertThat(metrics.scrape()).contains("genace_sweep_rows_seen NaN");

      state.passEnded(new SweepReport(2_000, List.of("op-9"), 4, 1_500, false, List.of("op-7")));

      JsonNode pass =
          StatusDocument.of(config, state, metrics).path("orphan_sweeper").path("last_pass");
      assertThat(pass.path("rows_seen").asInt()).isEqualTo(2_000);
      assertThat(pass.path("pages").asInt()).isEqualTo(4);
      assertThat(pass.path("seconds").asDouble()).isEqualTo(1.5);
      assertThat(pass.path("orphans").asInt()).isEqualTo(1);
      assertThat(pass.path("behind_running").asInt()).isEqualTo(1);
      assertThat(pass.path("walk_completed").asBoolean()).isFalse();
      assertThat(pass.path("ended_at").asText()).isNotBlank();
      assertThat(metrics.scrape())
          .contains("# HELP genace_sweep_rows_seen ")
          .contains("genace_sweep_rows_seen 2000.0")
          .contains("# HELP genace_sweep_pass_seconds ")
          .contains("genace_sweep_pass_seconds 1.5");
    } finally {
      metrics.close();
    }
  }

  @Test
  void the_sweep_interval_defaults_to_five_minutes_and_must_be_positive() {
    assertThat(WorkerConfig.fromEnvironment(env()).sweepInterval()).hasSeconds(300);
    Map<String, String> env = env();
    env.put("GENACE_SWEEP_SECONDS", "0");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GENACE_SWEEP_SECONDS");
  }
}
