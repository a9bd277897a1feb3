package com.genace.worker.health;

import com.genace.ledger.LedgerStatistics;
import com.genace.model.Phase;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The metrics served on {@code /metrics}: this worker's readiness and activity counts, and the
 * fleet-wide figures read from the ledger (operations per phase, open reviews and the oldest one's
 * age, dispatch outcomes, denied exclusive writes). The Temporal SDK's own metrics share the
 * registry.
 */
public final class WorkerMetrics {

  /** The transition events that are dispatch outcomes. */
  static final List<String> DISPATCH_EVENTS =
      List.of("accepted", "refused", "not_sent", "review_opened");

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicReference<LedgerStatistics.Snapshot> latest = new AtomicReference<>();

  public WorkerMetrics(WorkerState state) {
    // The activities count POST outcomes, polls and lease denials in the global registry.
    Metrics.addRegistry(registry);
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
    for (Phase phase : Phase.values()) {
      Gauge.builder("genace_operations", () -> figure(s -> s.phases().getOrDefault(phase, 0L)))
          .tag("phase", phase.wire())
          .description("operations in each phase, fleet-wide, from the ledger")
          .register(registry);
    }
    Gauge.builder("genace_open_reviews", () -> figure(s -> s.openReviews())).register(registry);
    Gauge.builder("genace_oldest_review_age_seconds", () -> figure(s -> s.oldestReviewAgeSeconds()))
        .register(registry);
    for (String event : DISPATCH_EVENTS) {
      Gauge.builder(
              "genace_dispatch_outcomes", () -> figure(s -> s.events().getOrDefault(event, 0L)))
          .tag("outcome", event)
          .description("recorded dispatch outcomes, fleet-wide, from the ledger's history")
          .register(registry);
    }
    Gauge.builder("genace_denied_writes", () -> figure(s -> s.deniedWrites()))
        .description("exclusive writes denied by the lease fence, fleet-wide")
        .register(registry);
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

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public String scrape() {
    return registry.scrape();
  }

  /** Detaches this registry from the global one. */
  public void close() {
    Metrics.removeRegistry(registry);
    registry.close();
  }
}
