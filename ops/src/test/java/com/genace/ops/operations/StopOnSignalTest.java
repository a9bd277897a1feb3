package com.genace.ops.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class StopOnSignalTest {

  @Test
  void ctrl_c_interrupts_the_command_and_the_process_waits_until_its_summary_is_out()
      throws Exception {
    AtomicReference<StopOnSignal> registered = new AtomicReference<>();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    CountDownLatch summaryPrinted = new CountDownLatch(1);
    Thread command =
        new Thread(
            () -> {
              try (StopOnSignal stop = StopOnSignal.forCurrentThread()) {
                registered.set(stop);
                running.countDown();
                try {
                  new CountDownLatch(1).await(); // the walk, until interrupted
                } catch (InterruptedException e) {
                  interrupted.countDown();
                }
                awaitQuietly(summaryPrinted); // in flight finishing, then the summary
              }
            });
    command.start();
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    Thread hook = new Thread(registered.get().hook()::run);
    hook.start();

    assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(hook.isAlive()).as("the hook waits for the summary").isTrue();
    summaryPrinted.countDown();
    hook.join(TimeUnit.SECONDS.toMillis(10));
    command.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(hook.isAlive()).isFalse();
    assertThat(command.isAlive()).isFalse();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
