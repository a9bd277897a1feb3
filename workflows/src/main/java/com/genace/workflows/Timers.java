package com.genace.workflows;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Every timer the workflow starts, each with the summary the Web UI shows beside it in the history
 * (instead of a bare timer id).
 */
final class Timers {

  private Timers() {}

  /** Sleeps; a cancel request of the enclosing scope ends it with a {@code CanceledFailure}. */
  static void sleep(Duration delay, String summary) {
    Workflow.newTimer(delay, options(summary)).get();
  }

  /**
   * Waits until {@code condition} holds or {@code delay} has passed. A wait that ends early cancels
   * its timer, so that it does not fire later into a workflow task of its own (as the timer of
   * {@link Workflow#await(Duration, Supplier)} would).
   *
   * @return whether the condition holds
   */
  static boolean await(Duration delay, String summary, Supplier<Boolean> condition) {
    if (condition.get()) {
      return true;
    }
    var started =
        new Object() {
          Promise<Void> timer;
        };
    CancellationScope scope =
        Workflow.newCancellationScope(
            () -> started.timer = Workflow.newTimer(delay, options(summary)));
    scope.run();
    Workflow.await(() -> started.timer.isCompleted() || condition.get());
    if (!started.timer.isCompleted()) {
      scope.cancel("the wait ended: " + summary);
      return true;
    }
    // A timer cancelled with the enclosing scope (a cancel request) ends the wait that way.
    started.timer.get();
    return false;
  }

  private static TimerOptions options(String summary) {
    return TimerOptions.newBuilder().setSummary(summary).build();
  }
}
