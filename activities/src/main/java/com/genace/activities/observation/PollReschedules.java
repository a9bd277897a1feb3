package com.genace.activities.observation;

import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.NextPoll;
import com.genace.activities.ledger.PollSchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The next polls a poll loop's status polls ask for, written to the schedule together by {@link
 * #flush} ({@link PollSchedule#rescheduleAll}): one statement and one commit for every poll made
 * since the last flush instead of one each, which would be most of what a poll costs the database.
 *
 * <p>Each delay counts from when the poll asked for it, so the time spent waiting for the flush
 * does not stretch the pace. A claim overtaken meanwhile is handed to {@code overtaken}, as a
 * single reschedule's refusal would be. A flush that fails loses nothing: the claims run out and
 * their operations are due again, as after a crash.
 */
final class PollReschedules {

  private static final Logger log = LoggerFactory.getLogger(PollReschedules.class);

  /** Reschedules written by one statement at most. */
  static final int BATCH = PollSchedule.MAX_RESCHEDULES;

  private record Asked(DuePoll claimed, Duration delay, long askedAtNanos) {}

  private final PollSchedule schedule;
  private final Consumer<DuePoll> overtaken;
  private final LongSupplier nanoTime;
  private final Queue<Asked> asked = new ConcurrentLinkedQueue<>();

  PollReschedules(PollSchedule schedule, Consumer<DuePoll> overtaken, LongSupplier nanoTime) {
    this.schedule = schedule;
    this.overtaken = overtaken;
    this.nanoTime = nanoTime;
  }

  /** Asks for the claimed operation's next poll, {@code delay} from now. */
  void add(DuePoll claimed, Duration delay) {
    asked.add(new Asked(claimed, delay, nanoTime.getAsLong()));
  }

  /** Writes every reschedule asked for so far; never throws. */
  void flush() {
    List<Asked> batch;
    while (!(batch = next()).isEmpty()) {
      try {
        write(batch);
      } catch (RuntimeException e) {
        log.warn(
            "{} polls not rescheduled (due again when their claims run out): {}",
            batch.size(),
            e.toString());
      }
    }
  }

  private List<Asked> next() {
    List<Asked> batch = new ArrayList<>();
    Asked one;
    while (batch.size() < BATCH && (one = asked.poll()) != null) {
      batch.add(one);
    }
    return batch;
  }

  private void write(List<Asked> batch) {
    long now = nanoTime.getAsLong();
    List<NextPoll> next = new ArrayList<>(batch.size());
    for (Asked one : batch) {
      Duration left = one.delay().minusNanos(now - one.askedAtNanos());
      next.add(new NextPoll(one.claimed(), left.isNegative() ? Duration.ZERO : left));
    }
    Set<String> applied = schedule.rescheduleAll(next);
    for (Asked one : batch) {
      if (!applied.contains(one.claimed().row().operationId())) {
        overtaken.accept(one.claimed());
      }
    }
  }
}
