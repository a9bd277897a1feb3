package com.genace.activities.observation;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Carries an operation's trace from the activity that waits for its observation to the polls a loop
 * makes later, on any worker, through the ledger: the W3C {@code traceparent} of the waiting
 * activity's span, so that each poll's GET and statements are that span's children.
 */
final class PollTracing {

  private static final String TRACEPARENT = "traceparent";

  private static final TextMapGetter<Map<String, String>> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  private PollTracing() {}

  /** The current span's {@code traceparent}; empty when nothing is traced. */
  static Optional<String> current() {
    if (!Span.current().getSpanContext().isValid()) {
      return Optional.empty();
    }
    Map<String, String> carrier = new HashMap<>();
    W3CTraceContextPropagator.getInstance().inject(Context.current(), carrier, Map::put);
    return Optional.ofNullable(carrier.get(TRACEPARENT));
  }

  /** The context whose current span is the one {@code traceParent} names (the root if none). */
  static Context of(Optional<String> traceParent) {
    if (traceParent.isEmpty()) {
      return Context.root();
    }
    return W3CTraceContextPropagator.getInstance()
        .extract(Context.root(), Map.of(TRACEPARENT, traceParent.get()), GETTER);
  }
}
