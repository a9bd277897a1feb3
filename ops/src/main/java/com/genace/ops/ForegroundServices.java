package com.genace.ops;

import java.util.concurrent.CountDownLatch;

/**
 * What a long-running command ({@code simulator}, {@code dev}) started, kept until Ctrl-C and then
 * closed, last started first. A shutdown hook does the closing on Ctrl-C; in-process callers (the
 * tests) interrupt the waiting thread instead.
 */
public final class ForegroundServices implements AutoCloseable {

  private final StartedServices started =
      new StartedServices(e -> System.err.println("genace: while stopping: " + e));
  private final Thread hook = new Thread(started::close, "genace-shutdown");

  public ForegroundServices() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Keeps {@code service} to be closed on exit, and returns it. */
  public <T extends AutoCloseable> T add(T service) {
    return started.add(service);
  }

  /** Blocks until the process is stopped or this thread is interrupted. */
  public void awaitStop() {
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run: it closes everything.
      return;
    }
    started.close();
  }
}
