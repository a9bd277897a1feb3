package com.genace.worker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TelemetrySettingsTest {

  @Test
  void without_otel_variables_nothing_is_exported_and_the_service_is_named() {
    Map<String, String> properties = TelemetrySettings.properties(Map.of("HOME", "/root"));

    assertThat(properties)
        .containsEntry("otel.service.name", "genace-worker")
        .containsEntry("otel.traces.exporter", "none")
        .containsEntry("otel.metrics.exporter", "none")
        .containsEntry("otel.logs.exporter", "none")
        .doesNotContainKey("home");
  }

  @Test
  void an_otlp_endpoint_turns_on_traces_and_metrics_but_not_logs() {
    Map<String, String> properties =
        TelemetrySettings.properties(
            Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"));

    assertThat(properties)
        .containsEntry("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318")
        .containsEntry("otel.exporter.otlp.protocol", "http/protobuf")
        .containsEntry("otel.traces.exporter", "otlp")
        .containsEntry("otel.metrics.exporter", "otlp")
        .containsEntry("otel.logs.exporter", "none");
  }

  @Test
  void a_signal_endpoint_turns_on_that_signal_only() {
    Map<String, String> properties =
        TelemetrySettings.properties(
            Map.of("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://127.0.0.1:4318/v1/metrics"));

    assertThat(properties)
        .containsEntry("otel.metrics.exporter", "otlp")
        .containsEntry("otel.traces.exporter", "none");
  }

  @Test
  void named_exporters_and_service_names_win_over_the_defaults() {
    Map<String, String> properties =
        TelemetrySettings.properties(
            Map.of(
                "OTEL_TRACES_EXPORTER", "otlp",
                "OTEL_METRICS_EXPORTER", "none",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
                "OTEL_SERVICE_NAME", "genace-eu"));

    assertThat(properties)
        .containsEntry("otel.traces.exporter", "otlp")
        .containsEntry("otel.metrics.exporter", "none")
        .containsEntry("otel.service.name", "genace-eu");
  }

  @Test
  void a_service_name_among_the_resource_attributes_is_kept() {
    Map<String, String> properties =
        TelemetrySettings.properties(
            Map.of(
                "OTEL_RESOURCE_ATTRIBUTES", "service.name=genace-eu,deployment.environment=prod"));

    assertThat(properties).doesNotContainKey("otel.service.name");
  }

  @Test
  void grpc_is_refused_naming_the_variable() {
    assertThatThrownBy(
            () ->
                TelemetrySettings.properties(Map.of("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported: use http/protobuf");
  }
}
