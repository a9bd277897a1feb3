package com.genace.worker.telemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.opentracingshim.OpenTracingShim;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkflowClientInterceptor;
import io.temporal.opentracing.OpenTracingClientInterceptor;
import io.temporal.opentracing.OpenTracingOptions;
import io.temporal.opentracing.OpenTracingWorkerInterceptor;

/**
 * Temporal's tracing interceptors over OpenTelemetry. The trace context travels in Temporal
 * headers, so one trace runs from the client's {@code StartWorkflow} span through {@code
 * RunWorkflow}, each {@code StartActivity} and {@code RunActivity}, down to the Genace HTTP calls
 * and ledger statements made inside the activity.
 *
 * <p>Temporal's Java SDK traces through OpenTracing only; OpenTelemetry's shim turns those spans
 * into OpenTelemetry spans (the shim is deprecated with OpenTracing itself, and is the bridge that
 * Temporal documents).
 */
public final class TemporalTracing {

  private TemporalTracing() {}

  /** For {@code WorkflowClientOptions.setInterceptors}: starts and signals carry the context. */
  public static WorkflowClientInterceptor clientInterceptor(OpenTelemetry openTelemetry) {
    return new OpenTracingClientInterceptor(options(openTelemetry));
  }

  /** For {@code WorkerFactoryOptions.setWorkerInterceptors}: workflow and activity spans. */
  public static WorkerInterceptor workerInterceptor(OpenTelemetry openTelemetry) {
    return new OpenTracingWorkerInterceptor(options(openTelemetry));
  }

  @SuppressWarnings("deprecation") // the shim is the only bridge from Temporal's OpenTracing
  private static OpenTracingOptions options(OpenTelemetry openTelemetry) {
    return OpenTracingOptions.newBuilder()
        .setTracer(OpenTracingShim.createTracerShim(openTelemetry))
        .build();
  }
}
