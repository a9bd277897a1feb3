package com.genace.ops.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.FaultProxy;
import com.genace.ops.faults.support.PostgresServer;
import com.genace.ops.faults.support.Seeds;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 3: {@code kill -9} of a worker at each step of an operation, each time with another worker
 * taking over; and the time it takes another worker to resume an observation after a crash.
 *
 * <p>Each step is held open from the outside long enough to kill the worker inside it:
 *
 * <ol>
 *   <li>delivery: the artifact store refuses writes, so delivery is in flight, retrying;
 *   <li>observation: the remote job runs for {@value #LONG_JOB_MS} ms;
 *   <li>the POST: Genace takes {@value #SLOW_POST_MS} ms to answer;
 *   <li>after the POST, before it is recorded: the worker's link to PostgreSQL is slow, and Genace
 *       holds the job while the ledger still says {@code submitting};
 *   <li>before {@code submitting} is committed: the same slow link, the ledger showing the dispatch
 *       claimed by the worker but the operation still {@code pending}.
 * </ol>
 */
@Tag("faults")
class WorkerKillDrillTest {

  static final int LONG_JOB_MS = 40_000;
  static final int SLOW_POST_MS = 6_000;
  static final Duration PARK = Duration.ofSeconds(60);

  /**
   * How long steps 4 and 5 wait for their victim's dispatch. The rescuer's task polls of the
   * dispatch queue already waiting on Temporal when it paused (up to the SDK's five) each still
   * bring it one dispatch, which it turns away: that operation waits 5 s, then longer (5, 5, 5, 8,
   * 16 s in a row), before its next attempt, until those task polls expire a minute after they were
   * sent. Five turn-aways and the claims over the slow link do not fit in {@link #PARK}.
   */
  static final Duration VICTIM_DISPATCH = Duration.ofSeconds(150);

  static final Duration START = Duration.ofSeconds(90);

  @Test
  void kill_9_at_any_step_loses_nothing_and_posts_nothing_twice() throws Exception {
    try (DrillStack stack = DrillStack.start("worker-kill", Seeds.next());
        FaultProxy database = new FaultProxy(stack.postgres.port())) {
      Map<String, String> slowDatabase = stack.workerEnvironment();
      slowDatabase.put("DATABASE_URL", PostgresServer.url(database.port()));
      stack.artifactStoreWritable(false);

      // 1-3: delivery, observation and a POST in flight on the same worker.
      DrillWorker first = stack.startWorker("worker-1").awaitReady(START);
      String delivering = stack.startOperations(1).get(0);
      Drills.require(PARK, "delivery in flight", () -> stack.inPhase(delivering, "delivering"));
      stack.simulatorControl.faults("{\"job_duration_ms\": " + LONG_JOB_MS + "}");
      String observing = stack.startOperations(1).get(0);
      Drills.require(PARK, "observation in flight", () -> stack.inPhase(observing, "observing"));
      stack.simulatorControl.faults(
          "{\"job_duration_ms\": 1500, \"latency_ms\": " + SLOW_POST_MS + "}");
      String posting = stack.startOperations(1).get(0);
      Drills.require(PARK, "a POST in flight", () -> stack.inPhase(posting, "submitting"));
      first.kill();
      // Written after this, the observed operation has been taken over: its worker is dead.
      long mark = stack.ledger.lastTransitionId();
      Instant crashedAt = Instant.now();
      stack.simulatorControl.faults("{\"latency_ms\": 0}");
      stack.artifactStoreWritable(true);
      // The rescuer takes over at once, but leaves dispatch to the next victims until the end.
      DrillWorker rescuer = stack.startWorker("worker-4");
      DrillWorker second = stack.startWorker("worker-2", slowDatabase);
      rescuer.awaitReady(START).pauseDispatch();
      Duration rescuerReady = Duration.between(crashedAt, Instant.now());

      // 4: Genace has answered, the ledger has not heard of it yet.
      second.awaitReady(START);
      database.mode(FaultProxy.Mode.SLOW);
      String unrecorded = stack.startOperations(1).get(0);
      Drills.require(
          VICTIM_DISPATCH,
          "a POST answered but not recorded",
          () ->
              !stack.simulatorControl.jobsFor(unrecorded).isEmpty()
                  && stack.inPhase(unrecorded, "submitting"));
      second.kill();
      database.mode(FaultProxy.Mode.PASS);

      // 5: the dispatch is claimed, submitting is not committed yet.
      // With an allowance the operation stays pending under the claim while the allowance is
      // reserved (without one, the claim commits submitting in the same statement: no window).
      Map<String, String> slowDatabaseWithAllowance = new HashMap<>(slowDatabase);
      slowDatabaseWithAllowance.put("GENACE_ALLOWANCE_CREDITS", "1000000");
      DrillWorker third =
          stack.startWorker("worker-3", slowDatabaseWithAllowance).awaitReady(START);
      database.mode(FaultProxy.Mode.SLOW);
      String claimed = stack.startOperations(1).get(0);
      Drills.require(
          VICTIM_DISPATCH,
          "a dispatch claimed before submitting",
          () ->
              stack
                  .operation(claimed)
                  .map(
                      op ->
                          op.phase().equals("pending")
                              && op.leaseOwner().filter("worker-3"::equals).isPresent())
                  .orElse(false));
      third.kill();
      database.mode(FaultProxy.Mode.PASS);
      assertThat(stack.simulatorControl.jobsFor(claimed)).as("no POST before submitting").isEmpty();
      rescuer.resumeDispatch();

      Drills.require(
          Duration.ofSeconds(180),
          "another worker resumed the observation of " + observing,
          () -> stack.firstWriteAfter(mark, observing).isPresent());
      // By the ledger's record of the write, not by when the drill looked (steps 4 and 5 came
      // in between).
      Duration recovery =
          Duration.between(crashedAt, stack.firstWriteAfter(mark, observing).orElseThrow());

      stack
          .settle(Duration.ofSeconds(180))
          .with("kills", 3)
          .with("steps", 5)
          .with("recovery_s", seconds(recovery))
          .with("rescuer_ready_s", seconds(rescuerReady))
          .report();
    }
  }

  private static String seconds(Duration duration) {
    return String.format(Locale.ROOT, "%.1f", duration.toMillis() / 1000.0);
  }
}
