package com.genace.worker.health;

import com.genace.client.TaskQueues;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;

/**
 * Counts activities running on this worker (for readiness and {@code active_operations}) and the
 * exceptions they throw, by root cause: processing exceptions, kept apart from operations that end
 * failed.
 */
public final class ActivityCounting extends WorkerInterceptorBase {

  private final WorkerState state;
  private final MeterRegistry registry;

  public ActivityCounting(WorkerState state, MeterRegistry registry) {
    this.state = state;
    this.registry = registry;
  }

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
        boolean dispatch = TaskQueues.DISPATCH.equals(context.getInfo().getActivityTaskQueue());
        var counter = dispatch ? state.activeDispatches() : state.activeOperations();
        counter.incrementAndGet();
        try {
          return super.execute(input);
        } catch (ApplicationFailure e) {
          if (e.getCategory() != ApplicationErrorCategory.BENIGN) { // e.g. a render still running
            countException(e);
          }
          throw e;
        } catch (RuntimeException e) {
          countException(e);
          throw e;
        } finally {
          counter.decrementAndGet();
        }
      }

      private void countException(RuntimeException e) {
        registry
            .counter(
                "genace_activity_exceptions",
                "activity",
                context.getInfo().getActivityType(),
                "exception",
                rootCause(e))
            .increment();
      }
    };
  }

  /**
   * What failed at the bottom, which is what an operator acts on: the innermost cause's class (an
   * {@code AccessDeniedException} inside an {@code ArtifactStoreException} inside an {@code
   * UncheckedIOException}), or an {@link ApplicationFailure}'s type when it carries no cause.
   */
  static String rootCause(Throwable e) {
    Throwable root = e;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 20; depth++) {
      root = root.getCause();
    }
    if (root instanceof ApplicationFailure app && app.getType() != null) {
      return app.getType();
    }
    return root.getClass().getSimpleName();
  }
}
