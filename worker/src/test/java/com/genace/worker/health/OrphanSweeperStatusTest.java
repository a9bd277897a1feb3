package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.worker.config.WorkerConfig;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The orphans this worker's sweeps found are counted on /status and in the metrics. */
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
  void the_sweep_interval_defaults_to_five_minutes_and_must_be_positive() {
    assertThat(WorkerConfig.fromEnvironment(env()).sweepInterval()).hasSeconds(300);
    Map<String, String> env = env();
    env.put("GENACE_SWEEP_SECONDS", "0");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GENACE_SWEEP_SECONDS");
  }
}
