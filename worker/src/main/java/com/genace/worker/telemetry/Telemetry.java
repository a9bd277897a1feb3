package com.genace.worker.telemetry;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;

/**
 * The process's OpenTelemetry SDK, built from the standard {@code OTEL_*} variables (see {@link
 * TelemetrySettings} for this worker's defaults) and installed as the global instance, which the
 * worker's interceptors, the Genace client and the ledger record to. Closing it flushes what is
 * still buffered.
 */
public final class Telemetry implements AutoCloseable {

  private final OpenTelemetry openTelemetry;
  private final OpenTelemetrySdk owned;

  private Telemetry(OpenTelemetry openTelemetry, OpenTelemetrySdk owned) {
    this.openTelemetry = openTelemetry;
    this.owned = owned;
  }

  /**
   * Builds the SDK and makes it the global instance; keeps the one already installed, if any (an
   * OpenTelemetry Java agent's).
   *
   * @throws IllegalArgumentException naming the variable when the configuration is invalid
   */
  public static Telemetry install(Map<String, String> env) {
    if (GlobalOpenTelemetry.isSet()) {
      return new Telemetry(GlobalOpenTelemetry.get(), null);
    }
    OpenTelemetrySdk sdk = configure(env);
    GlobalOpenTelemetry.set(sdk);
    return new Telemetry(sdk, sdk);
  }

  /** Builds the SDK from the {@code OTEL_*} entries of {@code env} without installing it. */
  static OpenTelemetrySdk configure(Map<String, String> env) {
    Map<String, String> properties = TelemetrySettings.properties(env);
    try {
      return AutoConfiguredOpenTelemetrySdk.builder()
          .addPropertiesSupplier(() -> properties)
          .disableShutdownHook()
          .build()
          .getOpenTelemetrySdk();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("invalid OTEL_* configuration: " + e.getMessage(), e);
    }
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  @Override
  public void close() {
    if (owned != null) {
      owned.close();
    }
  }
}
