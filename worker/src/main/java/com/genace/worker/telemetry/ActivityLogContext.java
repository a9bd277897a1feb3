package com.genace.worker.telemetry;

import com.genace.activities.ledger.LogFields;
import com.genace.client.GenerationRequest;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import java.util.List;
import java.util.Optional;
import org.slf4j.MDC;

/**
 * Puts the operation into the log context (slf4j's MDC) while an activity runs: operation id (every
 * Genace activity takes it, or the request holding it, as its first argument), workflow id and,
 * inside a trace, the trace and span ids (the Temporal SDK adds its own {@code WorkflowId}, {@code
 * ActivityType}, {@code Attempt} and more); the ledger adds the lease's revision and owner and the
 * remote job id as it learns them. All are cleared when the activity returns, so a pooled thread
 * carries nothing over.
 *
 * <p>Register it before the tracing interceptor, so that it runs inside the activity's span.
 */
public final class ActivityLogContext extends WorkerInterceptorBase {

  public static final String TRACE_ID = "trace_id";
  public static final String SPAN_ID = "span_id";

  static final List<String> FIELDS =
      List.of(
          LogFields.OPERATION_ID,
          LogFields.WORKFLOW_ID,
          LogFields.REMOTE_JOB_ID,
          LogFields.REVISION,
          LogFields.OWNER,
          TRACE_ID,
          SPAN_ID);

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityExecutionContext context;

      @Override
      public void init(ActivityExecutionContext context) {
        this.context = context;
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        ActivityInfo info = context.getInfo();
        operationId(input.getArguments()).ifPresent(id -> MDC.put(LogFields.OPERATION_ID, id));
        MDC.put(LogFields.WORKFLOW_ID, info.getWorkflowId());
        SpanContext span = Span.current().getSpanContext();
        if (span.isValid()) {
          MDC.put(TRACE_ID, span.getTraceId());
          MDC.put(SPAN_ID, span.getSpanId());
        }
        try {
          return super.execute(input);
        } finally {
          FIELDS.forEach(MDC::remove);
        }
      }
    };
  }

  /** Every Genace activity's first argument is the operation id, or the request that holds it. */
  static Optional<String> operationId(Object[] arguments) {
    if (arguments.length == 0) {
      return Optional.empty();
    }
    if (arguments[0] instanceof String operationId) {
      return Optional.of(operationId);
    }
    if (arguments[0] instanceof GenerationRequest request) {
      return Optional.ofNullable(request.operationId());
    }
    return Optional.empty();
  }
}
