package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.stats.ActivityStats;
import com.genace.worker.config.WorkerConfig;
import com.genace.workflows.lifecycle.RetentionReport;
import com.genace.workflows.lifecycle.SweepReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The figures deploy/prometheus/genace-alerts.yml alerts on that the worker had not exported
 * before: a poll loop that fails without stopping, sweep and retention passes that stop coming, and
 * the allowance's use against its limit.
 */
class AlertSignalsMetricsTest {

  /** A clock the test moves by hand. */
  private static final class HandClock extends Clock {
    private final AtomicReference<Instant> now =
        new AtomicReference<>(Instant.parse("2026-12-04T12:00:00Z"));

    void advance(Duration by) {
      now.updateAndGet(t -> t.plus(by));
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now.get();
    }
  }

  private static WorkerConfig config(String retentionDays) {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://app:db-pass@db.internal:5432/genace");
    env.put("GENACE_BASE_URL", "https://api.genace.example");
    env.put("GENACE_API_KEY", "sk-secret");
    env.put("GENACE_SWEEP_SECONDS", "120");
    env.put("GENACE_LEDGER_RETENTION_DAYS", retentionDays);
    return WorkerConfig.fromEnvironment(env);
  }

  @Test
  void poll_loop_failures_are_counted_by_stage() {
    WorkerMetrics metrics = new WorkerMetrics(new WorkerState(Clock.systemUTC(), 1), config("30"));
    try {
      ActivityStats stats = metrics.activityStats();
      stats.pollLoopFailed(ActivityStats.PollLoopFailure.CLAIM);
      stats.pollLoopFailed(ActivityStats.PollLoopFailure.CLAIM);
      stats.pollLoopFailed(ActivityStats.PollLoopFailure.LOOP);

      assertThat(metrics.scrape())
          .contains("# HELP genace_poll_loop_failures_total failed passes of this worker's poll")
          .contains("genace_poll_loop_failures_total{stage=\"claim\",} 2.0")
          .contains("genace_poll_loop_failures_total{stage=\"loop\",} 1.0");
    } finally {
      metrics.close();
    }
  }

  @Test
  void the_age_of_the_last_sweep_and_retention_pass_counts_from_the_worker_start_until_one_ran() {
    HandClock clock = new HandClock();
    WorkerState state = new WorkerState(clock, 1);
    WorkerMetrics metrics = new WorkerMetrics(state, config("30"));
    try {
      clock.advance(Duration.ofMinutes(10));
      assertThat(metrics.scrape())
          .contains("genace_sweep_last_pass_age_seconds 600.0")
          .contains("genace_retention_last_pass_age_seconds 600.0")
          .contains("genace_sweep_interval_seconds 120.0")
          .contains("genace_retention_days 30.0");

      state.passEnded(new SweepReport(10, List.of(), 1, 40, true));
      state.retentionPassEnded(new RetentionReport(0, 0, 0, 0, 0, 1, 30, true, 2_592_000));
      clock.advance(Duration.ofSeconds(45));
      assertThat(metrics.scrape())
          .contains("genace_sweep_last_pass_age_seconds 45.0")
          .contains("genace_retention_last_pass_age_seconds 45.0");
    } finally {
      metrics.close();
    }
  }

  @Test
  void the_allowance_shows_its_use_and_its_limit_and_an_unlimited_one_as_infinite() {
    WorkerMetrics metrics = new WorkerMetrics(new WorkerState(Clock.systemUTC(), 1), config("0"));
    try {
      assertThat(metrics.scrape())
          .contains("genace_allowance_credits_used NaN")
          .contains("genace_retention_days 0.0");

      AllowancePolicy limited =
          new AllowancePolicy(Duration.ofHours(1), 100, 50, 10, 5, Map.of(), 1);
      metrics.allowanceUsage(new DispatchAllowance.Usage(80, 2, limited));
      assertThat(metrics.scrape())
          .contains("genace_allowance_credits_used 80.0")
          .contains("genace_allowance_credits_limit 100.0");

      metrics.allowanceUsage(
          new DispatchAllowance.Usage(80, 2, limited, Map.of("shop", 45L, "studio", 30L)));
      assertThat(metrics.scrape())
          .contains("genace_allowance_account_credits_limit 50.0")
          .contains("genace_allowance_account_credits_used{account=\"shop\",} 45.0")
          .contains("genace_allowance_account_credits_used{account=\"studio\",} 30.0");
      metrics.allowanceUsage(new DispatchAllowance.Usage(80, 2, limited, Map.of("studio", 31L)));
      assertThat(metrics.scrape())
          .as("an account no longer among the top ones drops out")
          .doesNotContain("account=\"shop\"")
          .contains("genace_allowance_account_credits_used{account=\"studio\",} 31.0");

      metrics.allowanceUsage(new DispatchAllowance.Usage(80, 2, AllowancePolicy.UNLIMITED));
      assertThat(metrics.scrape())
          .contains("genace_allowance_credits_limit +Inf")
          .contains("genace_allowance_account_credits_limit +Inf")
          .doesNotContain("genace_allowance_account_credits_used{");
    } finally {
      metrics.close();
    }
  }
}
