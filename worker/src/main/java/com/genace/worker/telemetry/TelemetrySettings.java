package com.genace.worker.telemetry;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The OpenTelemetry SDK's configuration properties from the standard {@code OTEL_*} variables, with
 * this worker's defaults: service name {@value #DEFAULT_SERVICE_NAME}; a signal is exported only
 * when its exporter is named ({@code OTEL_TRACES_EXPORTER=otlp}) or an OTLP endpoint is given for
 * it, never by default (the SDK's own default would send OTLP to localhost:4317); OTLP over
 * HTTP/protobuf, the one protocol this worker ships a sender for.
 */
final class TelemetrySettings {

  static final String DEFAULT_SERVICE_NAME = "genace-worker";
  static final String HTTP_PROTOBUF = "http/protobuf";

  private TelemetrySettings() {}

  /**
   * @throws IllegalArgumentException naming the variable when it asks for something this worker
   *     cannot do
   */
  static Map<String, String> properties(Map<String, String> env) {
    Map<String, String> properties = new HashMap<>();
    env.forEach(
        (name, value) -> {
          if (name.startsWith("OTEL_") && value != null && !value.isBlank()) {
            properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value.strip());
          }
        });
    if (!properties.containsKey("otel.service.name")
        && !properties.getOrDefault("otel.resource.attributes", "").contains("service.name=")) {
      properties.put("otel.service.name", DEFAULT_SERVICE_NAME);
    }
    defaultExporter(properties, "traces");
    defaultExporter(properties, "metrics");
    // Logs go to standard output as JSON lines; OTLP only if explicitly asked for.
    properties.putIfAbsent("otel.logs.exporter", "none");
    for (String signal : new String[] {"", ".traces", ".metrics", ".logs"}) {
      String key = "otel.exporter.otlp" + signal + ".protocol";
      String protocol = properties.get(key);
      if (protocol != null && !protocol.equals(HTTP_PROTOBUF)) {
        throw new IllegalArgumentException(
            variable(key) + "=" + protocol + " is not supported: use " + HTTP_PROTOBUF);
      }
    }
    properties.putIfAbsent("otel.exporter.otlp.protocol", HTTP_PROTOBUF);
    return properties;
  }

  private static void defaultExporter(Map<String, String> properties, String signal) {
    boolean endpoint =
        properties.containsKey("otel.exporter.otlp.endpoint")
            || properties.containsKey("otel.exporter.otlp." + signal + ".endpoint");
    properties.putIfAbsent("otel." + signal + ".exporter", endpoint ? "otlp" : "none");
  }

  private static String variable(String property) {
    return property.toUpperCase(Locale.ROOT).replace('.', '_');
  }
}
