package com.genace.ops.bench;

import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NextPoll;
import com.genace.activities.ledger.ObservedSnapshot;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.RenewResult;
import com.genace.client.model.NextAction;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code bench soak}'s hot statements in turn, through the ledger's API on the bench's unfinished
 * operations, timed one by one:
 *
 * <ul>
 *   <li>a status poll's, the statements a worker runs most: {@code claim_due_polls} (one due
 *       operation taken off the poll schedule) and {@code reschedule_polls} (its next poll, an hour
 *       on, so that no worker sharing the ledger polls it);
 *   <li>the lease cycle of an action: {@code claim} (observe), {@code renew} and {@code release};
 *   <li>a status poll's answer, {@code observed_snapshot} ({@code record_observed_snapshot}, the
 *       statement every poll that sees a change runs, without a lease);
 *   <li>the dispatch claim with a limited allowance ({@code claim} for dispatch, then {@code
 *       reserve}).
 * </ul>
 */
final class SoakHotLoop {

  static final List<String> STATEMENTS =
      List.of(
          "claim_due_polls",
          "reschedule_polls",
          "claim",
          "renew",
          "release",
          "observed_snapshot",
          "dispatch_claim");

  /** The claim time of a status poll's claim, as a worker's poll loop takes it. */
  static final Duration POLL_CLAIM = OperationsLedger.DEFAULT_LEASE_DURATION;

  static final int SLICES = 3;
  static final int SLICE_WHILE = 200;

  private final OperationsLedger ledger;
  private final DispatchAllowance allowance;
  private final SoakLedger rows;
  private final List<String> observing;
  private final List<String> pending;
  private final String owner;

  /**
   * @param second whether this loop works on the second half of the rows (every other one): the
   *     loop that runs beside a retention pass, so that the two loops never contend
   */
  SoakHotLoop(
      OperationsLedger ledger, DispatchAllowance allowance, SoakLedger rows, boolean second) {
    this.ledger = ledger;
    this.allowance = allowance;
    this.rows = rows;
    this.owner = "bench-" + rows.prefix() + (second ? "during-" : "");
    this.observing = half(rows.unfinishedIds("observing"), second);
    this.pending = half(rows.unfinishedIds("pending"), second);
  }

  /**
   * Each statement's latency: the lowest of the medians of {@value #SLICES} slices of {@code
   * rounds} rounds each, or, with 0, of slices of {@value #SLICE_WHILE} rounds for as long as
   * {@code until} is true (at least one). The lowest slice, so that a burst of background work (an
   * autovacuum, a neighbour's build on a shared machine) during one slice does not pass for the
   * ledger's growth; the same estimator with and without a retention pass running.
   */
  Map<String, Double> medians(int rounds, AtomicBoolean until) {
    Map<String, Double> best = new LinkedHashMap<>();
    int slice = 0;
    do {
      Map<String, List<Double>> samples = new LinkedHashMap<>();
      STATEMENTS.forEach(s -> samples.put(s, new ArrayList<>()));
      int size = rounds > 0 ? rounds : SLICE_WHILE;
      for (int i = 0; i < size; i++) {
        round(slice * size + i, samples);
      }
      samples.forEach(
          (s, list) -> best.merge(s, Figures.percentile(list, 50), (a, b) -> Math.min(a, b)));
      slice++;
    } while (rounds > 0 ? slice < SLICES : until.get());
    return best;
  }

  private void round(int i, Map<String, List<Double>> samples) {
    String id = observing.get(i % observing.size());
    rows.makeDue(id);
    long t = System.nanoTime();
    List<DuePoll> due = ledger.polls().claimDue(1, POLL_CLAIM);
    samples.get("claim_due_polls").add(Figures.millis(System.nanoTime() - t));
    if (due.size() != 1 || !due.get(0).row().operationId().equals(id)) {
      throw new IllegalStateException(
          "the poll schedule's oldest due entry is not the bench's " + id + ": a scratch ledger?");
    }
    t = System.nanoTime();
    if (ledger
        .polls()
        .rescheduleAll(List.of(new NextPoll(due.get(0), Duration.ofHours(1))))
        .isEmpty()) {
      throw new IllegalStateException("the bench's poll of " + id + " was not rescheduled");
    }
    samples.get("reschedule_polls").add(Figures.millis(System.nanoTime() - t));

    t = System.nanoTime();
    ClaimResult claim = ledger.claim(id, owner, NextAction.OBSERVE);
    samples.get("claim").add(Figures.millis(System.nanoTime() - t));
    Lease lease = BenchClaims.lease(claim);
    t = System.nanoTime();
    if (!(ledger.renew(lease) instanceof RenewResult.Renewed)) {
      throw new IllegalStateException("the bench's own lease on " + id + " was not renewed");
    }
    samples.get("renew").add(Figures.millis(System.nanoTime() - t));
    t = System.nanoTime();
    ledger.release(lease);
    samples.get("release").add(Figures.millis(System.nanoTime() - t));
    t = System.nanoTime();
    ObservedSnapshot observed =
        ledger.recordObservedSnapshot(
            id,
            owner,
            "gen_" + id,
            RemoteStatus.RUNNING,
            "{\"id\":\"gen_" + id + "\",\"status\":\"running\"}",
            null);
    samples.get("observed_snapshot").add(Figures.millis(System.nanoTime() - t));
    if (!(observed instanceof ObservedSnapshot.Recorded)) {
      throw new IllegalStateException(
          "the bench's snapshot of " + id + " was refused: " + observed);
    }

    String next = pending.get(i % pending.size());
    t = System.nanoTime();
    Lease dispatch = BenchClaims.lease(ledger.claim(next, owner, NextAction.DISPATCH));
    if (!allowance.reserve(next, "soak-account", "image-v1").granted()) {
      throw new IllegalStateException("the bench's allowance refused a reservation");
    }
    samples.get("dispatch_claim").add(Figures.millis(System.nanoTime() - t));
    allowance.settle(next, false);
    ledger.release(dispatch);
  }

  private static List<String> half(List<String> ids, boolean second) {
    List<String> half = new ArrayList<>();
    for (int row = 0; row < ids.size(); row++) {
      if ((row % 2 == 1) == second) {
        half.add(ids.get(row));
      }
    }
    return half;
  }
}
