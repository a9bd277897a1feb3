package com.genace.worker.health;

import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.db.StatementStats;
import com.genace.activities.ledger.LedgerStatistics;
import com.genace.activities.ledger.LedgerStats;
import com.genace.activities.stats.ActivityStats;
import com.genace.client.model.Phase;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.temporal.Saturation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The metrics served on {@code /metrics}: this worker's readiness and activity counts, what its
 * activities, ledger statements and writes did (injected into them as {@link #activityStats},
 * {@link #statementStats} and {@link #ledgerStats}), and the fleet's figures read from the ledger
 * (operations per unfinished phase, open reviews and the oldest one's age). The Temporal SDK's own
 * metrics share the registry.
 */
public final class WorkerMetrics {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicReference<LedgerStatistics.Snapshot> latest = new AtomicReference<>();
  private final AtomicReference<DispatchAllowance.Usage> allowance = new AtomicReference<>();
  private final AtomicReference<Saturation.Reading> saturation = new AtomicReference<>();
  private final java.util.Map<String, Saturation.Backlog> backlogs =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final CreditLabels creditLabels;

  /** One series per account among the top ones; rewritten at each read, so others drop out. */
  private final io.micrometer.core.instrument.MultiGauge accountsUsed;

  public WorkerMetrics(WorkerState state, WorkerConfig config) {
    this.creditLabels = new CreditLabels(config.allowance().estimate());
    registry
        .config()
        .meterFilter(new MetricHelp())
        .meterFilter(new SdkHistograms(config.metricBuckets()));
    Gauge.builder("genace_accepting_dispatch", () -> state.readiness().acceptingDispatch() ? 1 : 0)
        .register(registry);
    Gauge.builder(
            "genace_accepting_observation", () -> state.readiness().acceptingObservation() ? 1 : 0)
        .register(registry);
    Gauge.builder("genace_active_dispatches", state.activeDispatches(), a -> a.get())
        .register(registry);
    Gauge.builder("genace_active_operation_activities", state.activeOperations(), a -> a.get())
        .register(registry);
    CircuitReport.register(registry, state);
    Gauge.builder("genace_accounts_held", () -> state.heldAccounts().size()).register(registry);
    for (Phase phase : Phase.values()) {
      if (phase.isTerminal()) {
        continue; // finished operations are counted by genace_ledger_transitions_total
      }
      Gauge.builder("genace_operations", () -> figure(s -> s.phases().getOrDefault(phase, 0L)))
          .tag("phase", phase.wire())
          .description("unfinished operations in each phase, fleet-wide, from the ledger")
          .register(registry);
    }
    Gauge.builder("genace_open_reviews", () -> figure(s -> s.openReviews())).register(registry);
    Gauge.builder("genace_oldest_review_age_seconds", () -> figure(s -> s.oldestReviewAgeSeconds()))
        .register(registry);
    Gauge.builder(
            "genace_oldest_observation_age_seconds",
            () -> figure(s -> s.oldestObservationAgeSeconds()))
        .register(registry);
    Gauge.builder(
            "genace_oldest_delivery_age_seconds", () -> figure(s -> s.oldestDeliveryAgeSeconds()))
        .register(registry);
    Gauge.builder("genace_polls_overdue", () -> figure(s -> s.pollsOverdue()))
        .description(
            "operations whose status poll is overdue by 5 s or more, fleet-wide: the observation's"
                + " backlog")
        .register(registry);
    Gauge.builder(
            "genace_oldest_poll_overdue_seconds", () -> figure(s -> s.oldestPollOverdueSeconds()))
        .description("how late the most overdue status poll is, fleet-wide")
        .register(registry);
    Gauge.builder(
            "genace_operations_started_not_registered",
            () -> startedNotRegistered().map(Long::doubleValue).orElse(Double.NaN))
        .description("generation workflows running that no worker has registered in the ledger yet")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "genace_orphans_found",
            state.orphansFound(),
            java.util.concurrent.atomic.AtomicLong::get)
        .description(
            "operations this worker's orphan sweeps put in review because their workflow was closed")
        .register(registry);
    Gauge.builder(
            "genace_sweep_rows_seen",
            () -> state.lastSweepPass().map(p -> (double) p.report().checked()).orElse(Double.NaN))
        .description("unfinished operations the last sweep pass on this worker read and checked")
        .register(registry);
    Gauge.builder(
            "genace_sweep_pass_seconds",
            () ->
                state
                    .lastSweepPass()
                    .map(p -> p.report().elapsedMillis() / 1000.0)
                    .orElse(Double.NaN))
        .description("how long the last sweep pass on this worker took")
        .register(registry);
    Gauge.builder("genace_sweep_last_pass_age_seconds", state::secondsSinceSweepPass)
        .description(
            "seconds since the last sweep pass on this worker ended (since the worker started"
                + " before one ran here); the fleet's min says how long no worker swept")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "genace_retention_deleted_operations",
            state.retentionDeleted(),
            java.util.concurrent.atomic.AtomicLong::get)
        .description("ended operations this worker's retention passes deleted from the ledger")
        .register(registry);
    Gauge.builder(
            "genace_retention_last_pass_deleted",
            () ->
                state
                    .lastRetentionPass()
                    .map(p -> (double) p.report().operationsDeleted())
                    .orElse(Double.NaN))
        .description("ended operations the last retention pass on this worker deleted")
        .register(registry);
    Gauge.builder(
            "genace_retention_pass_seconds",
            () ->
                state
                    .lastRetentionPass()
                    .map(p -> p.report().elapsedMillis() / 1000.0)
                    .orElse(Double.NaN))
        .description("how long the last retention pass on this worker took")
        .register(registry);
    Gauge.builder("genace_retention_last_pass_age_seconds", state::secondsSinceRetentionPass)
        .description(
            "seconds since the last retention pass on this worker ended (since the worker started"
                + " before one ran here); the fleet's min says how long no worker ran one")
        .register(registry);
    Gauge.builder("genace_retention_days", config::ledgerRetentionDays)
        .description(
            "GENACE_LEDGER_RETENTION_DAYS of this worker: 0 keeps everything (no retention pass"
                + " runs)")
        .register(registry);
    Gauge.builder("genace_sweep_interval_seconds", () -> config.sweepInterval().toSeconds())
        .description("GENACE_SWEEP_SECONDS of this worker: how often the orphan sweeper runs")
        .register(registry);
    Gauge.builder(
            "genace_allowance_credits_used",
            () -> usage().map(u -> (double) u.creditsInWindow()).orElse(Double.NaN))
        .description(
            "credits the fleet's dispatches reserved or spent in the allowance's current window,"
                + " from the ledger")
        .register(registry);
    Gauge.builder(
            "genace_allowance_credits_limit",
            () -> usage().map(u -> limit(u.policy().globalCredits())).orElse(Double.NaN))
        .description(
            "the fleet's credits per allowance window (GENACE_ALLOWANCE_CREDITS); +Inf when"
                + " unlimited")
        .register(registry);
    Gauge.builder(
            "genace_allowance_account_credits_limit",
            () -> usage().map(u -> limit(u.policy().accountCredits())).orElse(Double.NaN))
        .description(
            "each account's credits per allowance window (GENACE_ALLOWANCE_ACCOUNT_CREDITS); +Inf"
                + " when unlimited")
        .register(registry);
    this.accountsUsed =
        io.micrometer.core.instrument.MultiGauge.builder("genace_allowance_account_credits_used")
            .description(
                "credits reserved or spent in their allowance window by the "
                    + DispatchAllowance.ACCOUNTS_SHOWN
                    + " accounts that used most (only while accounts have a limit), from the"
                    + " ledger")
            .register(registry);
    Gauge.builder("genace_config_version_current", () -> state.configVersionCurrent() ? 1 : 0)
        .description("1 while this worker's configuration version is the fleet's current one")
        .register(registry);
    Gauge.builder("genace_config_info", () -> 1)
        .tag("version", config.configVersion().orElse(""))
        .tag("fingerprint", config.fleetFingerprint())
        .description("this worker's configuration version and fleet settings fingerprint")
        .register(registry);
  }

  /** Counts what this worker's activities did: POST outcomes, status polls, reviews. */
  public ActivityStats activityStats() {
    return new ActivityMeters(registry, creditLabels);
  }

  /** Counts this worker's ledger statements by name and outcome, with their durations. */
  public StatementStats statementStats() {
    return (statement, elapsed, outcome) ->
        Timer.builder("genace_db_statement")
            .tag("statement", statement)
            .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
            .register(registry)
            .record(elapsed);
  }

  /** Counts the state changes this worker recorded and its writes the lease fence denied. */
  public LedgerStats ledgerStats() {
    return new LedgerStats() {
      @Override
      public void transition(String event) {
        Counter.builder("genace_ledger_transitions")
            .tag("event", event)
            .description("state changes this worker recorded in the ledger, by event")
            .register(registry)
            .increment();
      }

      @Override
      public void denied(String write) {
        Counter.builder("genace_lease_denials")
            .tag("write", write)
            .description("exclusive writes by this worker that the lease fence denied")
            .register(registry)
            .increment();
      }
    };
  }

  /** An allowance limit; unlimited (as /status shows it: null) is +Inf. */
  private static double limit(long credits) {
    return credits >= Integer.MAX_VALUE ? Double.POSITIVE_INFINITY : credits;
  }

  private Optional<DispatchAllowance.Usage> usage() {
    return Optional.ofNullable(allowance.get());
  }

  private double figure(java.util.function.ToDoubleFunction<LedgerStatistics.Snapshot> read) {
    LedgerStatistics.Snapshot snapshot = latest.get();
    return snapshot == null ? Double.NaN : read.applyAsDouble(snapshot);
  }

  public void update(LedgerStatistics.Snapshot snapshot) {
    latest.set(snapshot);
  }

  public Optional<LedgerStatistics.Snapshot> latest() {
    return Optional.ofNullable(latest.get());
  }

  /** Temporal's view of work not picked up yet, as last read (each statistics refresh). */
  public void saturation(Saturation.Reading reading) {
    saturation.set(reading);
    reading
        .backlog()
        .ifPresent(
            list ->
                list.forEach(
                    b -> {
                      String key = b.taskQueue() + "/" + b.type();
                      if (backlogs.put(key, b) == null) {
                        Gauge.builder("genace_task_queue_backlog", () -> backlogs.get(key).tasks())
                            .tag("task_queue", b.taskQueue())
                            .tag("type", b.type())
                            .description("tasks waiting for a worker, from Temporal")
                            .register(registry);
                        Gauge.builder(
                                "genace_task_queue_backlog_age_seconds",
                                () -> backlogs.get(key).oldestAgeSeconds())
                            .tag("task_queue", b.taskQueue())
                            .tag("type", b.type())
                            .description("age of the oldest task waiting, from Temporal")
                            .register(registry);
                      }
                    }));
  }

  public Optional<Saturation.Reading> saturation() {
    return Optional.ofNullable(saturation.get());
  }

  /**
   * Operations started whose ledger row does not exist yet: generation workflows running, less the
   * ledger's operations not in a terminal phase (each running workflow has at most one). Empty when
   * either figure is unknown.
   */
  public Optional<Long> startedNotRegistered() {
    Saturation.Reading reading = saturation.get();
    LedgerStatistics.Snapshot snapshot = latest.get();
    if (reading == null || snapshot == null || reading.runningWorkflows().isEmpty()) {
      return Optional.empty();
    }
    long registered =
        snapshot.phases().entrySet().stream()
            .filter(e -> !e.getKey().isTerminal())
            .mapToLong(java.util.Map.Entry::getValue)
            .sum();
    return Optional.of(Math.max(0, reading.runningWorkflows().get() - registered));
  }

  /** The allowance's use as last read (each readiness check). */
  public void allowanceUsage(DispatchAllowance.Usage usage) {
    allowance.set(usage);
    accountsUsed.register(
        usage.accountsInWindow().entrySet().stream()
            .<io.micrometer.core.instrument.MultiGauge.Row<?>>map(
                e ->
                    io.micrometer.core.instrument.MultiGauge.Row.of(
                        io.micrometer.core.instrument.Tags.of("account", e.getKey()), e.getValue()))
            .toList(),
        true);
  }

  public Optional<DispatchAllowance.Usage> allowanceUsage() {
    return Optional.ofNullable(allowance.get());
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public String scrape() {
    return registry.scrape();
  }

  public void close() {
    registry.close();
  }
}
