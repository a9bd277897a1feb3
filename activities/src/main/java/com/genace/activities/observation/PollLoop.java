package com.genace.activities.observation;

import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.ObservationWaiter;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.PollSchedule;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.stats.ActivityStats;
import com.genace.workflows.observation.ObservationActivities;
import com.genace.workflows.observation.ObservationResult;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's share of the ledger's poll schedule: claims due operations ({@link
 * PollSchedule#claimDue}), makes one status poll of each on its poll threads ({@link StatusPoll}:
 * snapshots only forward, without a lease held across the GET; 404 to review; pacing by backoff,
 * jitter and {@code Retry-After}), and then either asks for the next poll (the reschedules are
 * written together every 100 ms, {@link PollReschedules}) or, once the operation has an outcome,
 * completes the activity waiting for it ({@link ObservationActivities#awaitRemoteJob}) and takes it
 * off the schedule.
 *
 * <p>Why: a poll costs a share of a claim, a GET and a share of a reschedule, with no Temporal call
 * and no commit of its own, so a render of hours costs Temporal one activity whatever its number of
 * polls, and the pace a fleet can poll at is the ledger's and Genace's, not the Temporal server's
 * (with an activity attempt per poll, 10,000 renders go at a fifth of their pace on the bench
 * machine: docs/performance.md).
 *
 * <p>Crashes: a loop that dies leaves its claimed operations due again once their claim time (the
 * ledger's lease duration) has run out, for any worker's loop; a loop that stalled past it can no
 * longer reschedule or end them (the claim's token no longer matches). An operation is on the
 * schedule from the write that made it observe, so it is polled even when the activity that waits
 * for it never ran; {@link WaitingActivities} then finds that activity through Temporal. A
 * completion Temporal cannot take now is tried again a few seconds later; one for an activity no
 * longer waiting is dropped, as that activity's next attempt (or none, if the workflow moved on)
 * reads the ledger itself.
 */
public final class PollLoop implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PollLoop.class);

  /** Operations claimed at once: enough to keep the poll threads busy, few enough to share. */
  static final int CLAIM_BATCH = 100;

  /**
   * Claimed operations not polled yet, at most: two claims' worth. A busy loop waits for a quarter
   * of a claim to be free before claiming again, so that it claims in batches and its one thread is
   * not what limits the pace (claiming whenever one place is free costs a statement per few polls
   * once the polls are quick).
   */
  static final int IN_FLIGHT = 2 * CLAIM_BATCH;

  private static final int CLAIM_AT_LEAST = CLAIM_BATCH / 4;

  /**
   * How long the loop waits when nothing more is due: a poll may be this late (its pace a little
   * slower), and an idle worker claims four times a second, each a short index scan.
   */
  static final Duration IDLE_WAIT = Duration.ofMillis(250);

  /** How soon a completion Temporal refused for now is tried again. */
  static final Duration COMPLETION_RETRY = Duration.ofSeconds(5);

  /** How often the reschedules asked for are written, together ({@link PollReschedules}). */
  static final Duration RESCHEDULE_EVERY = Duration.ofMillis(100);

  /** How long closing waits for the polls under way. */
  static final int CLOSE_WAIT_SECONDS = 10;

  private final OperationsLedger ledger;
  private final StatusPoll statusPoll;
  private final WaitingActivities waiting;
  private final BooleanSupplier started;
  private final BooleanSupplier stopped;
  private final Duration claimTime;
  private final Duration idleWait;
  private final Semaphore inFlight;
  private final ExecutorService pollThreads;
  private final PollReschedules reschedules;
  private final ScheduledExecutorService writer;
  private final Thread loop;
  private final ObservingTooLong tooLong;
  private final ActivityStats stats;

  /** Claimed and handed to the poll threads, not yet started: what closing hands back. */
  private final Set<DuePoll> unstarted = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean closing = new AtomicBoolean();
  private final CountDownLatch shutDownDone = new CountDownLatch(1);
  private volatile boolean closed;

  /**
   * @param started whether the loop may claim yet (its worker has started): it waits till then
   * @param stopped whether its worker is shutting down: it then stops as {@link #close} does
   * @param pollThreads how many status polls run at once
   * @param limits how long an operation may observe before its poll logs the ERROR line that says
   *     so (once per operation: {@link OperationsLedger#reportWaitingTooLong})
   * @param clock this process's clock, for the check that spares that statement for every other
   *     poll (the statement itself decides by the database's)
   * @param stats where the loop's own failures are counted ({@code genace_poll_loop_failures_total}
   *     on a worker): the alert on a loop that fails without stopping reads it
   */
  public PollLoop(
      OperationsLedger ledger,
      StatusPoll statusPoll,
      WaitingActivities waiting,
      PollingPolicy policy,
      BooleanSupplier started,
      BooleanSupplier stopped,
      int pollThreads,
      WaitLimits limits,
      Clock clock,
      ActivityStats stats) {
    if (pollThreads < 1) {
      throw new IllegalArgumentException("a poll loop needs at least one poll thread");
    }
    this.ledger = ledger;
    this.statusPoll = statusPoll;
    this.waiting = waiting;
    this.started = started;
    this.stopped = stopped;
    this.claimTime = ledger.leaseDuration();
    this.idleWait =
        policy.initialDelay().compareTo(IDLE_WAIT) < 0 ? policy.initialDelay() : IDLE_WAIT;
    this.inFlight = new Semaphore(IN_FLIGHT);
    this.pollThreads = Executors.newFixedThreadPool(pollThreads, daemons("genace-poll-"));
    this.reschedules = new PollReschedules(ledger.polls(), this::overtaken, System::nanoTime);
    this.writer = Executors.newSingleThreadScheduledExecutor(daemons("genace-poll-writer-"));
    this.loop = daemons("genace-poll-loop").newThread(this::run);
    this.tooLong = new ObservingTooLong(ledger, limits, clock);
    this.stats = stats;
  }

  public PollLoop start() {
    writer.scheduleWithFixedDelay(
        reschedules::flush,
        RESCHEDULE_EVERY.toMillis(),
        RESCHEDULE_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
    loop.start();
    return this;
  }

  /**
   * Stops claiming, waits up to {@value #CLOSE_WAIT_SECONDS} s in all for the loop and the polls
   * under way (then cuts them off, and gives them 1 s more to ask for their next polls), and hands
   * back the claimed operations no poll thread started, due at once for any worker's loop (each
   * under its claim's token, so counted as one poll of its pacing), instead of when their claims
   * run out. Writes every reschedule asked for. A second call, from another thread, waits for the
   * first to end: a draining worker waits for its loop before it exits.
   */
  @Override
  public void close() {
    if (closing.compareAndSet(false, true)) {
      try {
        shutDown();
      } finally {
        shutDownDone.countDown();
      }
    } else if (Thread.currentThread() != loop) {
      awaitQuietly(shutDownDone);
    }
  }

  private void shutDown() {
    closed = true;
    // One wait for the loop and the polls together, so that closing takes at most about
    // CLOSE_WAIT_SECONDS + 1 s, which the drain's budget counts on.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS);
    if (Thread.currentThread() != loop) {
      loop.interrupt();
      joinQuietly(loop, deadline); // its last claims are in `unstarted` once it has stopped
    }
    pollThreads.shutdown();
    try {
      if (!pollThreads.awaitTermination(
          Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        pollThreads.shutdownNow();
        // A poll cut off asks for its next poll on the way out: let it, before the last flush.
        pollThreads.awaitTermination(1, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      pollThreads.shutdownNow();
      Thread.currentThread().interrupt();
    }
    writer.shutdown();
    for (DuePoll claimed : unstarted) {
      reschedules.add(claimed, Duration.ZERO);
    }
    unstarted.clear();
    reschedules.flush();
  }

  private void run() {
    Duration failureWait = idleWait;
    while (!closed) {
      if (stopped.getAsBoolean()) {
        close();
        return;
      }
      try {
        if (!started.getAsBoolean()) {
          pause(idleWait);
          continue;
        }
        inFlight.acquire(CLAIM_AT_LEAST);
        int free = CLAIM_AT_LEAST + inFlight.drainPermits();
        int wanted = Math.min(free, CLAIM_BATCH);
        inFlight.release(free - wanted);
        List<DuePoll> due;
        try {
          due = ledger.polls().claimDue(wanted, claimTime);
        } catch (RuntimeException e) {
          inFlight.release(wanted);
          stats.pollLoopFailed(ActivityStats.PollLoopFailure.CLAIM);
          log.warn("poll schedule unreadable, trying again in {}: {}", failureWait, e.toString());
          pause(failureWait);
          failureWait = Duration.ofMillis(Math.min(30_000, failureWait.toMillis() * 2));
          continue;
        }
        failureWait = idleWait;
        inFlight.release(wanted - due.size());
        for (DuePoll claimed : due) {
          unstarted.add(claimed);
          pollThreads.execute(() -> pollAndRelease(claimed));
        }
        if (due.size() < wanted) {
          pause(idleWait); // nothing more due now
        }
      } catch (InterruptedException e) {
        // close() interrupts; anything else does not stop this worker's share of the polls.
      } catch (RuntimeException | Error e) {
        // The poll threads refused work (closing), or a bug: the loop must outlive it, or this
        // worker would stop polling with nothing to show for it.
        if (!closed) {
          stats.pollLoopFailed(ActivityStats.PollLoopFailure.LOOP);
          log.error("poll loop failed; going on", e);
          pauseQuietly(idleWait);
        }
      }
    }
  }

  private static void joinQuietly(Thread thread, long deadlineNanos) {
    try {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void pauseQuietly(Duration wait) {
    try {
      pause(wait);
    } catch (InterruptedException e) {
      // closing, or a stray interrupt: the loop checks which
    }
  }

  private void pollAndRelease(DuePoll claimed) {
    unstarted.remove(claimed);
    Context trace = PollTracing.of(claimed.waiter().flatMap(ObservationWaiter::traceParent));
    try (Scope ignored = trace.makeCurrent()) {
      pollOnce(claimed);
    } catch (RuntimeException e) {
      // The ledger failed mid-way: the claim runs out and the operation is due again.
      log.warn("status poll of {} failed: {}", claimed.row().operationId(), e.toString());
    } finally {
      inFlight.release();
    }
  }

  /**
   * One claimed operation: a poll, then the next one asked for (written with the others by {@link
   * #flushReschedules}) or the waiting activity told.
   */
  void pollOnce(DuePoll claimed) {
    tooLong.reportIfDue(claimed.row());
    PollStep step = statusPoll.poll(claimed);
    step.again().ifPresent(delay -> reschedules.add(claimed, delay));
    step.outcome().ifPresent(outcome -> tell(claimed, outcome));
  }

  /** Writes the reschedules asked for so far: what this loop's writer does every 100 ms. */
  void flushReschedules() {
    reschedules.flush();
  }

  private void overtaken(DuePoll claimed) {
    try {
      statusPoll.overtaken(claimed).ifPresent(outcome -> tell(claimed, outcome));
    } catch (RuntimeException e) {
      // The claim ran out anyway: whoever has the operation now tells it.
      log.warn("overtaken status poll of {} failed: {}", claimed.row().operationId(), e.toString());
    }
  }

  private void tell(DuePoll claimed, ObservationResult outcome) {
    if (waiting.tell(claimed.row().operationId(), claimed.waiter(), outcome)) {
      statusPoll.told(claimed, outcome);
    } else {
      ledger.polls().retryTelling(claimed, COMPLETION_RETRY);
    }
  }

  private void pause(Duration wait) throws InterruptedException {
    Thread.sleep(wait.toMillis());
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
