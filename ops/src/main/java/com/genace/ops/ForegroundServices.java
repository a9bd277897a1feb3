package com.genace.ops;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;

/**
 * What a long-running command ({@code simulator}, {@code dev}) started, kept until Ctrl-C and then
 * closed, last started first. A shutdown hook does the closing on Ctrl-C; in-process callers (the
 * tests) interrupt the waiting thread instead.
 */
public final class ForegroundServices implements AutoCloseable {

  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final Thread hook = new Thread(this::closeAll, "genace-shutdown");

  public ForegroundServices() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Keeps {@code service} to be closed on exit, and returns it. */
  public synchronized <T extends AutoCloseable> T add(T service) {
    started.push(service);
    return service;
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
    closeAll();
  }

  private synchronized void closeAll() {
    while (!started.isEmpty()) {
      AutoCloseable service = started.pop();
      try {
        service.close();
      } catch (Exception e) {
        System.err.println("genace: while stopping: " + e);
      }
    }
  }
}
