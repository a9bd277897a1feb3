package com.genace.worker.telemetry;

import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.Tag;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Publishes a Micrometer registry's meters (the ones {@code /metrics} serves, the Temporal SDK's
 * among them) as OpenTelemetry instruments read at each collection, so that {@code
 * OTEL_METRICS_EXPORTER=otlp} exports the same figures.
 *
 * <p>OpenTelemetry's own Micrometer bridge is a registry that meters must be registered with; ours
 * are registered with the Prometheus registry directly, so this one observes that registry instead:
 * one instrument per meter name and statistic (a meter with several statistics, such as a timer,
 * gets {@code _count}, {@code _total} and {@code _max}), tags as attributes, counts and totals as
 * cumulative counters, the rest as gauges.
 */
public final class MicrometerBridge implements AutoCloseable {

  private static final Set<Statistic> CUMULATIVE =
      Set.of(Statistic.COUNT, Statistic.TOTAL, Statistic.TOTAL_TIME);

  private final MeterRegistry registry;
  private final io.opentelemetry.api.metrics.Meter meter;
  private final Map<String, AutoCloseable> instruments = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private MicrometerBridge(MeterRegistry registry, OpenTelemetry openTelemetry) {
    this.registry = registry;
    this.meter = openTelemetry.getMeter("com.genace.worker");
  }

  /** Publishes the registry's meters, present and future, until closed. */
  public static MicrometerBridge start(MeterRegistry registry, OpenTelemetry openTelemetry) {
    MicrometerBridge bridge = new MicrometerBridge(registry, openTelemetry);
    registry.config().onMeterAdded(bridge::publish);
    registry.getMeters().forEach(bridge::publish);
    return bridge;
  }

  private void publish(Meter added) {
    if (closed) {
      return;
    }
    Meter.Id id = added.getId();
    List<Statistic> statistics = new ArrayList<>();
    added.measure().forEach(m -> statistics.add(m.getStatistic()));
    for (Statistic statistic : statistics) {
      String name =
          statistics.size() == 1
              ? id.getName()
              : id.getName() + "_" + statistic.getTagValueRepresentation();
      instruments.computeIfAbsent(name, n -> instrument(n, id, statistic));
    }
  }

  private AutoCloseable instrument(String name, Meter.Id id, Statistic statistic) {
    Consumer<ObservableDoubleMeasurement> read =
        out -> {
          for (Meter m : registry.find(id.getName()).meters()) {
            for (Measurement measurement : m.measure()) {
              double value = measurement.getValue();
              if (measurement.getStatistic() == statistic && !Double.isNaN(value)) {
                out.record(value, attributes(m.getId()));
              }
            }
          }
        };
    String description = id.getDescription() == null ? "" : id.getDescription();
    String unit = id.getBaseUnit() == null ? "" : id.getBaseUnit();
    if (CUMULATIVE.contains(statistic)) {
      return meter
          .counterBuilder(name)
          .ofDoubles()
          .setDescription(description)
          .setUnit(unit)
          .buildWithCallback(read);
    }
    return meter
        .gaugeBuilder(name)
        .setDescription(description)
        .setUnit(unit)
        .buildWithCallback(read);
  }

  private static Attributes attributes(Meter.Id id) {
    AttributesBuilder attributes = Attributes.builder();
    for (Tag tag : id.getTagsAsIterable()) {
      attributes.put(tag.getKey(), tag.getValue());
    }
    return attributes.build();
  }

  @Override
  public void close() {
    closed = true;
    for (AutoCloseable instrument : instruments.values()) {
      try {
        instrument.close();
      } catch (Exception e) {
        // An observable instrument's close only unregisters its callback; nothing to report.
      }
    }
    instruments.clear();
  }
}
