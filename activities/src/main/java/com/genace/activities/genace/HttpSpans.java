package com.genace.activities.genace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.net.URI;

/**
 * Client spans for calls to Genace, named {@code genace METHOD ROUTE} with the route as configured
 * (a path template, never a URL with its query). They carry the method, the status, the server and
 * the operation or remote job; never the key, a header or a body.
 */
final class HttpSpans {

  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<String> ROUTE = AttributeKey.stringKey("url.template");
  static final AttributeKey<String> SERVER = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> OPERATION_ID = AttributeKey.stringKey("genace.operation_id");
  static final AttributeKey<String> REMOTE_JOB_ID = AttributeKey.stringKey("genace.remote_job_id");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("genace.create.outcome");

  private final Tracer tracer;

  HttpSpans(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("com.genace.activities.genace");
  }

  /** Starts a client span for a call to {@code server}; the caller makes it current and ends it. */
  Span start(String method, String route, URI server) {
    return tracer
        .spanBuilder("genace " + method + " " + route)
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(METHOD, method)
        .setAttribute(ROUTE, route)
        .setAttribute(SERVER, server.getHost())
        .setAttribute(PORT, (long) GenaceExchange.effectivePort(server))
        .startSpan();
  }

  static void status(Span span, int status) {
    span.setAttribute(STATUS, (long) status);
    if (status >= 400) {
      span.setAttribute(ERROR_TYPE, Integer.toString(status));
      span.setStatus(StatusCode.ERROR);
    }
  }

  /** Records the failure's type only: messages may quote server text. */
  static void failed(Span span, Throwable failure) {
    span.setAttribute(ERROR_TYPE, failure.getClass().getName());
    span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
  }

  /** A create that did not end accepted is an error from the caller's point of view. */
  static void outcome(Span span, CreateOutcome outcome) {
    String kind = outcome.getClass().getSimpleName();
    span.setAttribute(OUTCOME, kind);
    if (!(outcome instanceof CreateOutcome.Accepted)) {
      span.setStatus(StatusCode.ERROR, kind);
    }
  }
}
