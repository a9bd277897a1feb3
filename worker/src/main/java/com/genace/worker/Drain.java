package com.genace.worker;

import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.model.ReviewReason;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains a worker within its budget:
 *
 * <ol>
 *   <li>stop claiming dispatch;
 *   <li>let in-flight POSTs finish until the deadline, then put the ones still in flight in review
 *       under their own lease (never back to dispatchable: their outcome is unknown);
 *   <li>stop the other activities, which release their leases so another worker takes over at once;
 *       those still running at the deadline are interrupted; close the poll loop, which hands back
 *       the status polls it claimed and did not start.
 * </ol>
 */
final class Drain {

  private static final Logger log = LoggerFactory.getLogger(Drain.class);

  private final WorkerStack stack;
  private final Clock clock;

  Drain(WorkerStack stack, Clock clock) {
    this.stack = stack;
    this.clock = clock;
  }

  void run() {
    String workerId = stack.config.workerId();
    Instant deadline = clock.instant().plus(stack.config.drainTimeout());
    log.info("worker {} draining (deadline {})", workerId, deadline);
    stack.state.startDraining();
    stack.dispatchWorker.suspendPolling();
    while (!stack.state.postsInFlight().isEmpty() && clock.instant().isBefore(deadline)) {
      sleepQuietly(Duration.ofMillis(100));
    }
    for (Lease lease : stack.state.postsInFlight()) {
      persistReview(lease, workerId);
    }
    stack.factory.shutdown();
    // Its status polls under way end (or are cut off after 10 s); the claims no poll thread started
    // are handed back, due at once for the other workers' loops rather than after the claim time.
    stack.pollLoop.close();
    Duration left = Duration.between(clock.instant(), deadline);
    if (!left.isNegative()) {
      stack.factory.awaitTermination(left.toMillis(), TimeUnit.MILLISECONDS);
    }
    if (!stack.factory.isTerminated()) {
      // Running observations are interrupted; they release their leases on the way out.
      stack.factory.shutdownNow();
      stack.factory.awaitTermination(5, TimeUnit.SECONDS);
    }
    log.info("worker {} drained", workerId);
  }

  /** A POST still in flight at the deadline: its outcome is unknown, so it goes to review. */
  private void persistReview(Lease lease, String workerId) {
    try {
      WriteResult result =
          stack.ledger.openReview(
              lease,
              ReviewReason.DRAINED_DURING_POST.wire(),
              "worker " + workerId + " shut down while the POST was in flight");
      log.warn(
          "operation {} put in review while draining ({}): its POST was in flight",
          lease.operationId(),
          result);
    } catch (RuntimeException e) {
      // The lease stays on 'submitting': whoever claims next sends it to review all the same, and
      // that review calls an operator if it needs one. Nobody has to act on this line: a WARN.
      log.warn(
          "could not record the review of {} while draining: {}",
          lease.operationId(),
          e.getMessage());
    }
  }

  private static void sleepQuietly(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
