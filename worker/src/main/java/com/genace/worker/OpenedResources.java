package com.genace.worker;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * What a {@link WorkerStack} has opened so far, each with how it is closed. Closing goes last
 * first, and each close runs whatever happened to the ones before it.
 */
final class OpenedResources {

  /** How one resource is closed. */
  @FunctionalInterface
  interface Closing<T> {
    void close(T resource) throws Exception;
  }

  private final Deque<CloseStep> opened = new ArrayDeque<>();

  private record CloseStep(String name, Object resource, Closing<Object> closing) {}

  /**
   * Records {@code resource}, just opened, to be closed by {@code closing}.
   *
   * @return {@code resource}
   */
  @SuppressWarnings("unchecked")
  synchronized <T> T add(String name, T resource, Closing<? super T> closing) {
    opened.push(new CloseStep(name, resource, (Closing<Object>) closing));
    return resource;
  }

  /**
   * Closes everything recorded, the last opened first, and forgets it: a second call closes
   * nothing.
   *
   * @return what failed to close, in the order closed, each naming its resource
   */
  synchronized List<Exception> closeAll() {
    List<Exception> failures = new ArrayList<>();
    while (!opened.isEmpty()) {
      CloseStep step = opened.pop();
      try {
        step.closing().close(step.resource());
      } catch (Exception e) {
        IllegalStateException failure =
            new IllegalStateException("closing " + step.name() + " failed: " + e.getMessage(), e);
        failures.add(failure);
      }
    }
    return failures;
  }

  /**
   * Closes everything recorded because {@code failure} stopped what was opening them; what fails to
   * close is added to {@code failure} as suppressed.
   */
  void closeAfter(Throwable failure) {
    closeAll().forEach(failure::addSuppressed);
  }
}
