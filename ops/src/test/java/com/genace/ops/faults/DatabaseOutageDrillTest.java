package com.genace.ops.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.Seeds;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 2: the PostgreSQL server (a real server process) crash-restarted while operations are in
 * flight, then stopped for longer than a lease and started again. The workers' readiness goes down
 * and comes back by itself; nobody restarts them.
 */
@Tag("faults")
class DatabaseOutageDrillTest {

  static final Duration START = Duration.ofSeconds(90);
  static final Duration OUTAGE = Duration.ofSeconds(DrillStack.LEASE_SECONDS + 4);

  @Test
  void the_ledger_going_away_loses_nothing_and_readiness_follows_it() throws Exception {
    try (DrillStack stack = DrillStack.start("database-outage", Seeds.next())) {
      stack.simulatorControl.faults("{\"latency_ms\": 500, \"job_duration_ms\": 3000}");
      List<DrillWorker> workers =
          List.of(stack.startWorker("worker-a"), stack.startWorker("worker-b"));
      for (DrillWorker worker : workers) {
        worker.awaitReady(START);
      }

      stack.startOperations(6);
      Drills.require(
          Duration.ofSeconds(60),
          "operations in flight",
          () -> stack.phaseCount("submitting") + stack.phaseCount("observing") > 0);
      stack.postgres.crash();
      stack.postgres.start();
      Drills.require(
          Duration.ofSeconds(60), "ready again after the crash", () -> allReady(workers));

      stack.startOperations(6);
      Drills.require(
          Duration.ofSeconds(60),
          "operations in flight",
          () -> stack.phaseCount("submitting") + stack.phaseCount("observing") > 0);
      long stoppedAt = System.nanoTime();
      stack.postgres.crash();
      boolean wentDown = Drills.await(OUTAGE, () -> workers.stream().noneMatch(DrillWorker::ready));
      long left = OUTAGE.toNanos() - (System.nanoTime() - stoppedAt);
      if (left > 0) {
        Thread.sleep(left / 1_000_000);
      }
      double outageSeconds = (System.nanoTime() - stoppedAt) / 1e9;
      stack.postgres.start();
      long restartedAt = System.nanoTime();
      boolean cameBack = Drills.await(Duration.ofSeconds(60), () -> allReady(workers));
      double readySeconds = (System.nanoTime() - restartedAt) / 1e9;
      assertThat(wentDown).as("every worker became not ready while the ledger was down").isTrue();
      assertThat(cameBack).as("every worker became ready again by itself").isTrue();

      stack
          .settle(Duration.ofSeconds(180))
          .with("outage_s", String.format(Locale.ROOT, "%.1f", outageSeconds))
          .with("ready_again_s", String.format(Locale.ROOT, "%.1f", readySeconds))
          .report();
    }
  }

  private static boolean allReady(List<DrillWorker> workers) {
    return workers.stream().allMatch(DrillWorker::ready);
  }
}
