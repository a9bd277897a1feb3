package com.genace.ops.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Starts workflows from a few threads, as several application instances would, and optionally waits
 * for all of them to end; the elapsed time runs from the first start to the last end.
 */
final class Batch {

  static final int STARTERS = 8;

  /**
   * What batches of one kind did: how many workflows, from their first start to their last end,
   * what the simulator received meanwhile, and the CPU time their worker process used.
   */
  record Run(long workflows, Duration elapsed, SimulatorControl.Counts calls, Duration workerCpu) {

    Run plus(Run other) {
      return new Run(
          workflows + other.workflows,
          elapsed.plus(other.elapsed),
          calls.plus(other.calls),
          workerCpu.plus(other.workerCpu));
    }

    /** Workflows completed per second of their batches. */
    Double perSecond() {
      return Figures.perSecond(workflows, elapsed);
    }

    /** The worker's CPU milliseconds per workflow; null where the OS does not tell. */
    Double workerCpuMillisPerWorkflow() {
      return workerCpu.isZero() ? null : Figures.perOperation(workerCpu.toMillis(), workflows);
    }
  }

  private Batch() {}

  /** Generous: a stalled batch should fail with a clear message, not hang. */
  static Duration timeout(int workflows) {
    return Duration.ofSeconds(120 + workflows);
  }

  /** Starts one workflow per id; {@code start} returns once the server accepted it. */
  static void startAll(List<String> ids, java.util.function.Consumer<String> start)
      throws InterruptedException {
    ExecutorService starters = Executors.newFixedThreadPool(STARTERS);
    try {
      List<Future<?>> started = new ArrayList<>();
      for (String id : ids) {
        started.add(starters.submit(() -> start.accept(id)));
      }
      for (Future<?> future : started) {
        future.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "could not start a workflow: " + e.getCause().getMessage(), e.getCause());
    } finally {
      starters.shutdownNow();
    }
  }

  /** Starts all, waits for all results; returns the elapsed time. */
  static Duration run(
      List<String> ids,
      java.util.function.Consumer<String> start,
      Function<String, CompletableFuture<?>> result,
      Duration timeout)
      throws InterruptedException {
    long started = System.nanoTime();
    startAll(ids, start);
    List<CompletableFuture<?>> results = ids.stream().map(result).toList();
    try {
      CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "a workflow did not complete: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      long done = results.stream().filter(CompletableFuture::isDone).count();
      throw new IllegalStateException(
          done + " of " + ids.size() + " workflows ended within " + timeout.toSeconds() + " s");
    }
    return Duration.ofNanos(System.nanoTime() - started);
  }
}
