package com.genace.ops.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 1: a worker frozen with SIGSTOP past its lease while POSTs and observations are in flight;
 * a replacement takes over; the frozen one is thawed and finds its leases gone.
 *
 * <p>The replacement has the frozen worker's id, as a pod restarted under the same name would: the
 * lease owner strings are the same, and only the revision tells the two apart.
 */
@Tag("faults")
class WorkerFreezeDrillTest {

  @Test
  void a_thawed_worker_never_writes_over_the_worker_that_took_over() throws Exception {
    try (DrillStack stack = DrillStack.start("worker-freeze", Seeds.next())) {
      stack.simulatorControl.faults("{\"latency_ms\": 1500, \"job_duration_ms\": 6000}");
      DrillWorker frozen = stack.startWorker("worker-a").awaitReady(Duration.ofSeconds(90));

      stack.startOperations(4);
      Drills.require(
          Duration.ofSeconds(60),
          "an observation in flight",
          () -> stack.phaseCount("observing") > 0);
      stack.startOperations(4);
      Drills.require(
          Duration.ofSeconds(60), "a POST in flight", () -> stack.phaseCount("submitting") > 0);
      long mark = stack.ledger.lastTransitionId();
      Set<String> unfinished =
          stack.ledger.operations().values().stream()
              .filter(op -> !op.terminal())
              .map(LedgerView.Operation::id)
              .collect(Collectors.toSet());
      frozen.freeze();
      long frozenAt = System.nanoTime();

      Map<String, String> sameId = stack.workerEnvironment();
      sameId.put("GENACE_WORKER_ID", "worker-a");
      stack.startWorker("worker-a-replacement", sameId).awaitReady(Duration.ofSeconds(90));
      // Frozen until the replacement has written every operation the frozen one had in hand
      // (while it is frozen, every write is the replacement's).
      boolean takenOver =
          Drills.await(
              Duration.ofSeconds(180), () -> stack.writtenSince(mark).containsAll(unfinished));
      double frozenSeconds = (System.nanoTime() - frozenAt) / 1e9;
      frozen.thaw();
      assertThat(takenOver)
          .as("the replacement took over every operation of the frozen worker")
          .isTrue();

      DrillFigures figures =
          stack
              .settle(Duration.ofSeconds(180))
              .with("frozen_s", String.format(java.util.Locale.ROOT, "%.1f", frozenSeconds))
              .with("operations_taken_over", unfinished.size())
              .report();
      // Without a denial the thawed worker never tried to write, and the fence went untested.
      assertThat(figures.staleWritesDenied()).as("late writes of the thawed worker").isPositive();
    }
  }
}
