package com.genace.ops.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.Seeds;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 7: the artifact store refuses writes (its directory read-only): delivery retries, nothing
 * is marked delivered while it cannot be stored, and everything is delivered once it can.
 */
@Tag("faults")
class ArtifactStoreDrillTest {

  static final int OPERATIONS = 6;
  static final Duration REFUSING = Duration.ofSeconds(15);

  @Test
  void nothing_is_marked_delivered_that_is_not_stored() throws Exception {
    try (DrillStack stack = DrillStack.start("artifact-store", Seeds.next())) {
      stack.simulatorControl.faults("{\"job_duration_ms\": 1000}");
      stack.startWorker("worker-a").awaitReady(Duration.ofSeconds(90));
      stack.artifactStoreWritable(false);

      stack.startOperations(OPERATIONS);
      Drills.require(
          Duration.ofSeconds(90),
          "every delivery refused by the store",
          () -> stack.phaseCount("delivering") == OPERATIONS);
      // Deliveries keep failing and retrying for a while; none may claim success.
      Thread.sleep(REFUSING.toMillis());
      long deliveredWhileRefusing = stack.phaseCount("delivered");
      stack.artifactStoreWritable(true);

      assertThat(deliveredWhileRefusing).as("delivered while the store refused writes").isZero();
      stack
          .settle(Duration.ofSeconds(180))
          .with("delivered_while_refusing", deliveredWhileRefusing)
          .report();
    }
  }
}
