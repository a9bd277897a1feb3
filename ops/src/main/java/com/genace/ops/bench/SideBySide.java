package com.genace.ops.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs two loads on the same clients in alternating slices, in the order A B B A, so that drift
 * during the run (JIT, caches, autovacuum, a noisy neighbour) weighs on both alike. A short warm-up
 * of each comes first and is not counted.
 */
final class SideBySide {

  /** One client's unit of work; returns how many statements it ran. */
  @FunctionalInterface
  interface Load {
    long step(int client, long iteration) throws Exception;
  }

  /** What one load did in its counted slices. */
  record Totals(long statements, Duration elapsed) {
    Totals plus(Totals other) {
      return new Totals(statements + other.statements, elapsed.plus(other.elapsed));
    }

    Double perSecond() {
      return Figures.perSecond(statements, elapsed);
    }
  }

  private final int clients;

  SideBySide(int clients) {
    this.clients = clients;
  }

  /** Returns the totals of {@code a} and {@code b}, in that order. */
  List<Totals> run(Load a, Load b, Duration measured, Duration warmUp) throws InterruptedException {
    slice(a, warmUp);
    slice(b, warmUp);
    Duration quarter = measured.dividedBy(4);
    Totals totalA = slice(a, quarter);
    Totals totalB = slice(b, quarter);
    totalB = totalB.plus(slice(b, quarter));
    totalA = totalA.plus(slice(a, quarter));
    return List.of(totalA, totalB);
  }

  /** Every client runs {@code load} in a loop until the slice is over. */
  Totals slice(Load load, Duration length) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      long started = System.nanoTime();
      long deadline = started + length.toNanos();
      List<Future<Long>> futures = new ArrayList<>();
      for (int client = 0; client < clients; client++) {
        int id = client;
        futures.add(
            pool.submit(
                () -> {
                  long statements = 0;
                  for (long i = 0; System.nanoTime() < deadline; i++) {
                    statements += load.step(id, i);
                  }
                  return statements;
                }));
      }
      long statements = 0;
      for (Future<Long> future : futures) {
        statements += future.get();
      }
      return new Totals(statements, Duration.ofNanos(System.nanoTime() - started));
    } catch (ExecutionException e) {
      throw new IllegalStateException("a bench client failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }
}
