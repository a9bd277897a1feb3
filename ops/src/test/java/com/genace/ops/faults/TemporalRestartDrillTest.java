package com.genace.ops.faults;

import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.Seeds;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 4: the real Temporal dev server killed with {@code kill -9} and restarted on its SQLite
 * file, first while POSTs are in flight, then while observations are, down for longer than a lease.
 */
@Tag("faults")
class TemporalRestartDrillTest {

  static final Duration START = Duration.ofSeconds(90);

  @Test
  void a_killed_temporal_server_loses_nothing_and_causes_no_second_post() throws Exception {
    try (DrillStack stack = DrillStack.start("temporal-restart", Seeds.next())) {
      stack.simulatorControl.faults("{\"latency_ms\": 2000, \"job_duration_ms\": 4000}");
      List<DrillWorker> workers =
          List.of(stack.startWorker("worker-a"), stack.startWorker("worker-b"));
      for (DrillWorker worker : workers) {
        worker.awaitReady(START);
      }

      stack.startOperations(6);
      Drills.require(
          Duration.ofSeconds(60), "a POST in flight", () -> stack.phaseCount("submitting") > 0);
      stack.temporal.kill();
      Thread.sleep(3000);
      stack.temporal.start();

      stack.simulatorControl.faults("{\"latency_ms\": 0, \"job_duration_ms\": 8000}");
      stack.startOperations(6);
      Drills.require(
          Duration.ofSeconds(60),
          "observations in flight",
          () -> stack.phaseCount("observing") > 0);
      stack.temporal.kill();
      Thread.sleep(Duration.ofSeconds(DrillStack.LEASE_SECONDS + 2).toMillis());
      stack.temporal.start();

      stack.settle(Duration.ofSeconds(180)).with("temporal_kills", 2).report();
    }
  }
}
