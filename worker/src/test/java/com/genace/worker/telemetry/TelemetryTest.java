package com.genace.worker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The SDK built from OTEL_* variables exports over OTLP/HTTP to a collector on loopback. */
class TelemetryTest {

  private HttpServer collector;
  private final List<String> received = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1);
          received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body);
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    collector.start();
  }

  @AfterEach
  void tearDown() {
    collector.stop(0);
  }

  @Test
  void traces_and_the_bridged_metrics_go_to_the_otlp_endpoint_the_variable_names() {
    String endpoint = "http://127.0.0.1:" + collector.getAddress().getPort();
    OpenTelemetrySdk sdk =
        Telemetry.configure(
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, "OTEL_METRIC_EXPORT_INTERVAL", "60000"));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Gauge.builder("genace_open_reviews", () -> 4).register(registry);
    try (MicrometerBridge bridge = MicrometerBridge.start(registry, sdk)) {
      sdk.getTracer("test").spanBuilder("a span").startSpan().end();
      sdk.close(); // flushes both signals
    }

    assertThat(received)
        .anySatisfy(
            request ->
                assertThat(request)
                    .startsWith("POST /v1/traces ")
                    .contains("a span")
                    .contains("genace-worker"))
        .anySatisfy(
            request ->
                assertThat(request)
                    .startsWith("POST /v1/metrics ")
                    .contains("genace_open_reviews"));
  }
}
