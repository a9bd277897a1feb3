package com.genace.ops.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.ops.faults.support.DrillFigures;
import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.MalformingFront;
import com.genace.ops.faults.support.Seeds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 6: Genace misbehaving in turn: 5xx answers, lost POST responses (the job exists, the worker
 * never hears), malformed 2xx bodies (to POSTs and to status polls), and a storm of 429s. Operators
 * resolve the reviews that follow, as they would: the job found on Genace's side, or "not
 * submitted" when there is none.
 */
@Tag("faults")
class GenaceMisbehaviourDrillTest {

  static final Duration SPELL = Duration.ofSeconds(8);
  static final int LOST_RESPONSES = 3;

  @Test
  void a_misbehaving_genace_causes_no_second_post_and_loses_nothing() throws Exception {
    try (DrillStack stack = DrillStack.start("genace-misbehaviour", Seeds.next());
        MalformingFront front = new MalformingFront(stack.simulator.baseUrl())) {
      stack.simulatorControl.faults("{\"job_duration_ms\": 1500}");
      Map<String, String> env = stack.workerEnvironment();
      env.put("GENACE_BASE_URL", front.baseUrl().toString());
      List<DrillWorker> workers =
          List.of(stack.startWorker("worker-a", env), stack.startWorker("worker-b", env));
      for (DrillWorker worker : workers) {
        worker.awaitReady(Duration.ofSeconds(90));
      }

      spell(stack, "{\"rate_5xx\": 0.3}", 5);
      spell(stack, "{\"rate_5xx\": 0, \"lose_post_response_next\": " + LOST_RESPONSES + "}", 4);
      front.malformNext(3, 3);
      spell(stack, "{\"lose_post_response_next\": 0}", 4);
      front.malformNext(0, 0);
      spell(stack, "{\"rate_429\": 0.8}", 4);
      stack.simulatorControl.faults(
          "{\"rate_5xx\": 0, \"rate_429\": 0, \"lose_post_response_next\": 0}");

      DrillFigures figures =
          stack
              .settle(Duration.ofSeconds(180))
              .with("spells", "5xx,lost_responses,malformed_2xx,429_storm")
              .report();
      assertThat(figures.figure("reviews"))
          .as("the lost responses alone open %d reviews", LOST_RESPONSES)
          .isGreaterThanOrEqualTo(LOST_RESPONSES);
    }
  }

  /** Starts operations under these faults and lets them run into them for a while. */
  private static void spell(DrillStack stack, String faults, int operations) throws Exception {
    stack.simulatorControl.faults(faults);
    stack.startOperations(operations);
    Thread.sleep(SPELL.toMillis());
  }
}
