package com.genace.activities.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a call that might hang on a daemon thread of its own and waits for it at most {@code
 * hungAfter}: a call that never returned fails the test (its thread would stay parked) instead of
 * stalling the build.
 */
public final class OwnThread {

  private OwnThread() {}

  /**
   * The call's result, or what it threw; fails when it is still running after {@code hungAfter}.
   */
  public static <T> T call(String name, Duration hungAfter, Callable<T> call) throws Exception {
    AtomicReference<T> result = new AtomicReference<>();
    AtomicReference<Exception> failure = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                result.set(call.call());
              } catch (Exception e) {
                failure.set(e);
              }
            },
            name);
    caller.setDaemon(true);
    caller.start();
    caller.join(hungAfter.toMillis());
    assertThat(caller.isAlive()).as("the call returned; its thread is free").isFalse();
    if (failure.get() != null) {
      throw failure.get();
    }
    return result.get();
  }
}
