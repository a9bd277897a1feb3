package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.stats.ActivityStats;
import com.genace.worker.config.WorkerConfig;
import com.genace.workflows.WorkflowCounters;
import com.genace.workflows.model.RemoteStatus;
import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What one scrape of {@code /metrics} costs, next to what it cost when the Temporal SDK's
 * histograms kept Micrometer's default buckets: the same SDK latencies are fed to both registries
 * through the SDK's own reporter.
 */
class MetricsScrapeTest {

  private static final Map<String, String> ENV =
      Map.of(
          "DATABASE_URL", "postgresql://u:p@127.0.0.1:5432/genace",
          "GENACE_BASE_URL", "http://127.0.0.1:8787",
          "GENACE_API_KEY", "sk-test");

  private WorkerMetrics metrics;

  @AfterEach
  void close() {
    if (metrics != null) {
      metrics.close();
    }
  }

  /** The SDK's latencies as a worker reports them: per queue, poll type and request. */
  private static void feedSdkLatencies(MeterRegistry registry) throws Exception {
    Scope scope =
        new RootScopeBuilder()
            .reporter(new MicrometerClientStatsReporter(registry))
            .reportEvery(com.uber.m3.util.Duration.ofSeconds(3600));
    for (String queue : List.of("genace-dispatch", "genace-operations", "genace-observation")) {
      for (String name :
          List.of(
              "temporal_request_latency",
              "temporal_long_request_latency",
              "temporal_activity_execution_latency",
              "temporal_activity_schedule_to_start_latency",
              "temporal_workflow_task_execution_latency")) {
        Scope tagged = scope.tagged(Map.of("namespace", "default", "task_queue", queue));
        for (int ms = 1; ms < 5000; ms *= 3) {
          tagged.timer(name).record(com.uber.m3.util.Duration.ofMillis(ms));
        }
      }
    }
    scope.close();
  }

  @Test
  void the_sdk_histograms_keep_the_configured_buckets_and_the_scrape_shrinks() throws Exception {
    PrometheusMeterRegistry before = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    feedSdkLatencies(before);
    metrics = new WorkerMetrics(new WorkerState(Clock.systemUTC(), 1), config(Map.of()));
    feedSdkLatencies(metrics.registry());

    String old = before.scrape();
    String now = metrics.scrape();

    assertThat(maxBucketsPerSeries(now))
        .isEqualTo(WorkerConfig.DEFAULT_METRIC_BUCKETS.size() + 1); // and +Inf
    assertThat(maxBucketsPerSeries(old)).isGreaterThan(50);
    assertThat(now.lines().count()).isLessThan(old.lines().count() / 4);
    assertThat(now.length()).isLessThan(old.length() / 4);
  }

  @Test
  void the_buckets_are_configurable_and_validated() throws Exception {
    metrics =
        new WorkerMetrics(
            new WorkerState(Clock.systemUTC(), 1),
            config(Map.of("GENACE_METRICS_BUCKETS", "0.1, 1")));
    feedSdkLatencies(metrics.registry());

    assertThat(maxBucketsPerSeries(metrics.scrape())).isEqualTo(3);
    assertThatThrownBy(() -> config(Map.of("GENACE_METRICS_BUCKETS", "0.1,soon")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "GENACE_METRICS_BUCKETS must be comma-separated seconds between 0 and 86400,"
                + " e.g. 0.05,0.5,5");
  }

  @Test
  void every_genace_metric_has_help_text() throws Exception {
    metrics = new WorkerMetrics(new WorkerState(Clock.systemUTC(), 1), config(Map.of()));
    // Meters registered without a description: the activities', and the workflow's through the SDK.
    ActivityStats activities = metrics.activityStats();
    activities.posted(new CreateOutcome.Accepted("job-1", "queued"));
    activities.polled(RemoteStatus.RUNNING);
    activities.reviewOpened();
    activities.duplicateJobsFound();
    activities.reviewResolved(ActivityStats.Resolver.OPERATOR);
    activities.creditsCommitted("shop", "image-v1", 2);
    metrics
        .registry()
        .counter("genace_activity_exceptions", "activity", "Deliver", "exception", "X")
        .increment();
    metrics.ledgerStats().transition("created");
    metrics.ledgerStats().denied("renew");
    metrics.statementStats().executed("claim", Duration.ofMillis(2), outcome());
    Scope scope =
        new RootScopeBuilder()
            .reporter(new MicrometerClientStatsReporter(metrics.registry()))
            .reportEvery(com.uber.m3.util.Duration.ofSeconds(3600));
    WorkflowCounters.ALL.forEach(name -> scope.counter(name).inc(1));
    scope.close();

    String scrape = metrics.scrape();
    Map<String, String> help = new HashMap<>();
    Matcher m = Pattern.compile("(?m)^# HELP (genace_\\w+) ?(.*)$").matcher(scrape);
    while (m.find()) {
      help.put(m.group(1), m.group(2));
    }
    assertThat(help)
        .containsKeys(
            "genace_post_outcomes_total",
            "genace_polls_total",
            "genace_reviews_opened_total",
            "genace_review_duplicates_total",
            "genace_review_resolutions_total",
            "genace_credits_committed_total",
            "genace_activity_exceptions_total",
            "genace_ledger_transitions_total",
            "genace_lease_denials_total",
            "genace_db_statement_seconds",
            "genace_accepting_dispatch",
            "genace_open_reviews",
            "genace_accounts_held")
        .containsKeys(
            WorkflowCounters.ALL.stream().map(name -> name + "_total").toArray(String[]::new));
    assertThat(help).allSatisfy((name, text) -> assertThat(text).as(name).isNotBlank());
  }

  @Test
  void committed_credits_are_counted_on_bounded_labels() {
    metrics =
        new WorkerMetrics(
            new WorkerState(Clock.systemUTC(), 1),
            config(Map.of("GENACE_MODEL_COSTS", "image-v1=2,video-v1=40")));
    ActivityStats activities = metrics.activityStats();
    activities.creditsCommitted("shop", "image-v1", 2);
    activities.creditsCommitted("shop", "image-v1", 2);
    activities.creditsCommitted("shop", "video-v1", 40);
    activities.creditsCommitted("shop", "someone-elses-model", 1);
    // Each activity gets its own stats; the accounts kept are the process's.
    for (int i = 0; i < CreditLabels.ACCOUNTS + 10; i++) {
      metrics.activityStats().creditsCommitted("account-" + i, "image-v1", 2);
    }

    String scrape = metrics.scrape();
    List<String> series =
        scrape.lines().filter(line -> line.startsWith("genace_credits_committed_total{")).toList();
    assertThat(series)
        .contains(
            "genace_credits_committed_total{account=\"shop\",model=\"image-v1\",} 4.0",
            "genace_credits_committed_total{account=\"shop\",model=\"video-v1\",} 40.0",
            "genace_credits_committed_total{account=\"shop\",model=\"other\",} 1.0",
            // shop took one of the places: 49 more accounts, the other 11 share "other".
            "genace_credits_committed_total{account=\"other\",model=\"image-v1\",} 22.0");
    assertThat(series)
        .as("at most %d accounts and other, per model", CreditLabels.ACCOUNTS)
        .hasSize(3 + (CreditLabels.ACCOUNTS - 1) + 1);
  }

  private static com.genace.activities.db.StatementStats.Outcome outcome() {
    return com.genace.activities.db.StatementStats.Outcome.values()[0];
  }

  private static WorkerConfig config(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(ENV);
    env.putAll(extra);
    return WorkerConfig.fromEnvironment(env);
  }

  /** The most {@code _bucket} lines of any one series (metric plus tags other than {@code le}). */
  private static long maxBucketsPerSeries(String scrape) {
    Map<String, Long> counts = new HashMap<>();
    scrape
        .lines()
        .filter(line -> line.contains("_bucket{"))
        .map(line -> line.replaceAll("le=\"[^\"]*\",?", "").replaceAll(" [^ ]+$", ""))
        .forEach(series -> counts.merge(series, 1L, Long::sum));
    return counts.values().stream().mapToLong(Long::longValue).max().orElse(0);
  }
}
