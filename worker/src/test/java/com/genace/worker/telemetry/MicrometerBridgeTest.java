package com.genace.worker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MicrometerBridgeTest {

  private final InMemoryMetricReader reader = InMemoryMetricReader.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
          .build();
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @AfterEach
  void tearDown() {
    sdk.close();
  }

  private Map<String, MetricData> collect() {
    Collection<MetricData> metrics = reader.collectAllMetrics();
    return metrics.stream().collect(Collectors.toMap(MetricData::getName, m -> m));
  }

  @Test
  void gauges_counters_and_timers_are_read_from_the_registry_at_each_collection() {
    AtomicInteger active = new AtomicInteger(2);
    Gauge.builder("genace_active_dispatches", active, AtomicInteger::get).register(registry);
    Counter failures =
        Counter.builder("genace_activity_exceptions")
            .tag("activity", "Dispatch")
            .register(registry);
    failures.increment(3);

    try (MicrometerBridge bridge = MicrometerBridge.start(registry, sdk)) {
      // Registered after the bridge started, as the Temporal SDK's meters are.
      Timer.builder("temporal_request_latency").register(registry).record(Duration.ofMillis(250));
      active.set(5);

      Map<String, MetricData> metrics = collect();
      assertThat(metrics.get("genace_active_dispatches").getDoubleGaugeData().getPoints())
          .singleElement()
          .satisfies(p -> assertThat(p.getValue()).isEqualTo(5.0));
      assertThat(metrics.get("genace_activity_exceptions").getDoubleSumData().getPoints())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.getValue()).isEqualTo(3.0);
                assertThat(p.getAttributes().get(AttributeKey.stringKey("activity")))
                    .isEqualTo("Dispatch");
              });
      assertThat(metrics.get("genace_activity_exceptions").getDoubleSumData().isMonotonic())
          .isTrue();
      assertThat(metrics.get("temporal_request_latency_count").getDoubleSumData().getPoints())
          .singleElement()
          .satisfies(p -> assertThat(p.getValue()).isEqualTo(1.0));
      assertThat(metrics.get("temporal_request_latency_total").getDoubleSumData().getPoints())
          .singleElement()
          .satisfies(p -> assertThat(p.getValue()).isEqualTo(0.25));
      assertThat(metrics).containsKey("temporal_request_latency_max");
    }

    assertThat(collect()).as("nothing is read once closed").isEmpty();
  }
}
