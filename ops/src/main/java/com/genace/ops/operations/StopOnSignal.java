package com.genace.ops.operations;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C during a bulk command: the shutdown hook interrupts the command's thread and waits (up to
 * {@link #GRACE_SECONDS}) until it has finished what was in flight and printed its summary. In
 * process (the tests), interrupting the thread does the same.
 */
final class StopOnSignal implements AutoCloseable {

  static final long GRACE_SECONDS = 60;

  private final CountDownLatch finished = new CountDownLatch(1);
  private final Thread hook;

  private StopOnSignal(Thread command) {
    this.hook =
        new Thread(
            () -> {
              command.interrupt();
              try {
                finished.await(GRACE_SECONDS, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "genace-bulk-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  static StopOnSignal forCurrentThread() {
    return new StopOnSignal(Thread.currentThread());
  }

  /** What runs on Ctrl-C (for the tests, which cannot send one to their own JVM). */
  Thread hook() {
    return hook;
  }

  /** The summary is out: the process may end. */
  @Override
  public void close() {
    finished.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running: it returns now that the summary is out.
    }
  }
}
