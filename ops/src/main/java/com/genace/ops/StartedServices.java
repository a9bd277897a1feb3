package com.genace.ops;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;

/**
 * What a command started on this machine for its run (an embedded PostgreSQL, the Temporal test
 * server, the simulator, workers, a scratch directory), closed last started first: the one way
 * {@code demo}, the benches, {@code dev} and {@code simulator} take their local stack down. A
 * service that fails to close is told to the caller's {@code onFailure}, and the rest are closed
 * all the same.
 */
public final class StartedServices implements AutoCloseable {

  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final Consumer<Exception> onFailure;

  /**
   * @param onFailure told of each service that fails to close (an interrupted close restores the
   *     interrupt first)
   */
  public StartedServices(Consumer<Exception> onFailure) {
    this.onFailure = onFailure;
  }

  /** Keeps {@code service}, just started, to be closed before everything started earlier. */
  public synchronized <T extends AutoCloseable> T add(T service) {
    started.push(service);
    return service;
  }

  /** Closes everything kept, last started first; a second call closes nothing. */
  @Override
  public synchronized void close() {
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        onFailure.accept(e);
      }
    }
  }
}
