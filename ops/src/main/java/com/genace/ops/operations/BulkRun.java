package com.genace.ops.operations;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationSelection;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One bulk command's walk: the selection read from the ledger a page at a time (oldest first, on
 * the unfinished index, never Temporal's visibility), each operation read again by key and acted on
 * only while it still matches, at most {@code rate} a second and {@link #PARALLEL} at a time. A
 * progress line goes to standard error every {@link #PROGRESS_EVERY}. Interrupting the calling
 * thread (Ctrl-C, through {@link StopOnSignal}) stops taking new operations; those in flight finish
 * and are counted. A second run finds what was done no longer matching.
 */
final class BulkRun {

  static final int PARALLEL = 4;
  static final int PAGE = 200;
  static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

  /** Temporal or the database failing this many times in a row stops the run. */
  static final int FAILURES_TO_STOP = 5;

  private final LedgerAccess access;
  private final List<OperationSelection> selections;
  private final int rate;
  private final PrintWriter progress;

  BulkRun(
      LedgerAccess access, List<OperationSelection> selections, int rate, PrintWriter progress) {
    this.access = access;
    this.selections = List.copyOf(selections);
    this.rate = rate;
    this.progress = progress;
  }

  /** How many operations the selection holds now. */
  long count() {
    return selections.stream()
        .mapToLong(s -> access.ledger(ledger -> ledger.countSelection(s)))
        .sum();
  }

  /** The first {@code n} operations of the selection, oldest first in each phase. */
  List<OperationRow> sample(int n) {
    List<OperationRow> sample = new java.util.ArrayList<>();
    for (OperationSelection selection : selections) {
      int left = n - sample.size();
      if (left > 0) {
        sample.addAll(
            access.ledger(ledger -> ledger.selectPage(selection, Optional.empty(), left)));
      }
    }
    return sample;
  }

  /**
   * Applies {@code action} to every operation still matching when its turn comes. The action runs
   * on a worker thread, with the row as just read; it returns the outcome, never throws for a
   * refusal.
   */
  BulkSummary run(String verb, Function<OperationRow, BulkOutcome> action) {
    BulkSummary summary = new BulkSummary(verb, count());
    ExecutorService workers = Executors.newFixedThreadPool(PARALLEL, daemon("genace-bulk"));
    ScheduledExecutorService ticker =
        Executors.newSingleThreadScheduledExecutor(daemon("genace-bulk-progress"));
    ticker.scheduleAtFixedRate(
        () -> progress.println(summary.progressLine()),
        PROGRESS_EVERY.toMillis(),
        PROGRESS_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
    Semaphore slots = new Semaphore(PARALLEL);
    Pacer pacer = new Pacer(rate);
    try {
      walk(summary, workers, slots, pacer, action);
    } catch (InterruptedException e) {
      summary.interrupted();
    } catch (RuntimeException e) {
      // A page could not be read: interrupted while waiting for the database, or it failed.
      if (Thread.interrupted() || causedByInterruption(e)) {
        summary.interrupted();
      } else {
        summary.stop("the ledger could not be read: " + e.getMessage());
      }
    } finally {
      workers.shutdown();
      awaitUninterruptibly(workers);
      ticker.shutdownNow();
    }
    return summary;
  }

  private void walk(
      BulkSummary summary,
      ExecutorService workers,
      Semaphore slots,
      Pacer pacer,
      Function<OperationRow, BulkOutcome> action)
      throws InterruptedException {
    for (OperationSelection selection : selections) {
      Optional<OperationSelection.After> after = Optional.empty();
      while (true) {
        Optional<OperationSelection.After> from = after;
        List<OperationRow> page = access.ledger(ledger -> ledger.selectPage(selection, from, PAGE));
        if (page.isEmpty()) {
          break;
        }
        for (OperationRow listed : page) {
          if (Thread.interrupted()) {
            throw new InterruptedException();
          }
          if (summary.stopped()) {
            return;
          }
          pacer.await();
          slots.acquire();
          workers.execute(
              () -> {
                try {
                  BulkOutcome outcome = attempt(selection, listed.operationId(), action);
                  if (summary.record(listed.operationId(), outcome) >= FAILURES_TO_STOP) {
                    summary.stop(FAILURES_TO_STOP + " failures in a row");
                  }
                } finally {
                  slots.release();
                }
              });
        }
        after = Optional.of(OperationSelection.After.of(page.get(page.size() - 1)));
      }
    }
  }

  /** The single command's checks, on the row read again now: it may have moved on meanwhile. */
  private BulkOutcome attempt(
      OperationSelection selection,
      String operationId,
      Function<OperationRow, BulkOutcome> action) {
    try {
      Optional<OperationRow> now = access.ledger(ledger -> ledger.find(operationId));
      if (now.isEmpty()) {
        return new BulkOutcome.Skipped("no longer in the ledger");
      }
      if (!selection.matches(now.get())) {
        return new BulkOutcome.Skipped(noLongerMatching(selection, now.get()));
      }
      return action.apply(now.get());
    } catch (RuntimeException e) {
      return new BulkOutcome.Failed(
          e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
  }

  private static String noLongerMatching(OperationSelection selection, OperationRow row) {
    if (row.phase() != selection.phase()) {
      return "no longer " + selection.phase().wire() + " (now " + row.phase().wire() + ")";
    }
    if (selection.withoutCancelRequest() && row.cancelRequestedAt().isPresent()) {
      return "cancel already requested";
    }
    return "no longer matching";
  }

  private static boolean causedByInterruption(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }

  private static void awaitUninterruptibly(ExecutorService workers) {
    boolean interrupted = false;
    while (true) {
      try {
        if (workers.awaitTermination(1, TimeUnit.MINUTES)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** At most {@code rate} starts a second, evenly spaced (no burst after a pause). */
  static final class Pacer {
    private final long intervalNanos;
    private long next = System.nanoTime();

    Pacer(int rate) {
      this.intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
    }

    void await() throws InterruptedException {
      long now = System.nanoTime();
      long wait = next - now;
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      next = Math.max(now, next) + intervalNanos;
    }
  }
}
