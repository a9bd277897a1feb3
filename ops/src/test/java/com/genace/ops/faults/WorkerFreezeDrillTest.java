package com.genace.ops.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.ops.faults.support.DrillFigures;
import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.FaultProxy;
import com.genace.ops.faults.support.LedgerView;
import com.genace.ops.faults.support.PostgresServer;
import com.genace.ops.faults.support.Seeds;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 1: a worker frozen with SIGSTOP past its lease while POSTs, observations and a delivery are
 * in flight; a replacement takes over; the frozen one is thawed and finds its leases gone.
 *
 * <p>The replacement has the frozen worker's id, as a pod restarted under the same name would: the
 * lease owner strings are the same, and only the revision tells the two apart. For one operation
 * the drill makes sure that nothing else does: the frozen worker's write that records the delivery
 * is caught in its link to PostgreSQL; the replacement claims the same delivery (same owner, same
 * action) and its own write is caught the same way, so that its lease stays live; then the frozen
 * worker's write reaches the database. Owner, action and an unexpired lease all match; only the
 * revision is stale.
 */
@Tag("faults")
class WorkerFreezeDrillTest {

  static final Duration START = Duration.ofSeconds(90);

  @Test
  void a_thawed_worker_never_writes_over_the_worker_that_took_over() throws Exception {
    try (DrillStack stack = DrillStack.start("worker-freeze", Seeds.next());
        FaultProxy linkA = new FaultProxy(stack.postgres.port());
        FaultProxy linkReplacement = new FaultProxy(stack.postgres.port())) {
      stack.simulatorControl.faults("{\"latency_ms\": 1500, \"job_duration_ms\": 6000}");
      Map<String, String> env = stack.workerEnvironment();
      env.put("DATABASE_URL", PostgresServer.url(linkA.port()));
      DrillWorker frozen = stack.startWorker("worker-a", env).awaitReady(START);

      String delivered = stack.drill + "-1";
      linkA.holdWrite(manifestOf(delivered));
      stack.startOperations(4);
      Drills.require(
          Duration.ofSeconds(60),
          "an observation in flight",
          () -> stack.phaseCount("observing") > 0);
      Drills.require(
          Duration.ofSeconds(60),
          "worker-a's write that records the delivery of " + delivered + " caught in its link",
          linkA::holding);
      // The caught write waits for its answer until the JDBC socket timeout (15 s): the rest
      // must come before, while worker-a still holds the delivery's lease.
      stack.startOperations(4);
      Drills.require(
          Duration.ofSeconds(10), "a POST in flight", () -> stack.phaseCount("submitting") > 0);
      long mark = stack.ledger.lastTransitionId();
      Set<String> unfinished =
          stack.ledger.operations().values().stream()
              .filter(op -> !op.terminal())
              .map(LedgerView.Operation::id)
              .collect(Collectors.toSet());
      frozen.freeze();
      long frozenAt = System.nanoTime();
      LedgerView.Operation staleLease = stack.operation(delivered).orElseThrow();
      assertThat(staleLease.nextAction() + " lease of " + staleLease.leaseOwner().orElse("nobody"))
          .as("worker-a froze holding the delivery of " + delivered)
          .isEqualTo("deliver lease of worker-a");

      Map<String, String> sameId = stack.workerEnvironment();
      sameId.put("GENACE_WORKER_ID", "worker-a");
      sameId.put("DATABASE_URL", PostgresServer.url(linkReplacement.port()));
      linkReplacement.holdWrite(manifestOf(delivered));
      stack.startWorker("worker-a-replacement", sameId).awaitReady(START);
      // Frozen until the replacement has written every other operation the frozen one had in
      // hand (while it is frozen, every write is the replacement's), and has claimed the delivery
      // again once Temporal gave up on the frozen attempt (its heartbeat timeout).
      Set<String> others = new HashSet<>(unfinished);
      others.remove(delivered);
      boolean takenOver =
          Drills.await(
              Duration.ofSeconds(180),
              () -> linkReplacement.holding() && stack.writtenSince(mark).containsAll(others));
      assertThat(takenOver)
          .as("the replacement took over every operation of the frozen worker")
          .isTrue();

      // The replacement's lease stands, its write held: the frozen worker's write arrives now.
      stack.noteRevisions();
      LedgerView.Operation current = stack.operation(delivered).orElseThrow();
      linkA.letThrough();
      Drills.require(
          Duration.ofSeconds(30),
          "worker-a's held write reached the ledger",
          () -> written(stack, delivered, staleLease.revision()));
      LedgerView.Operation after = stack.operation(delivered).orElseThrow();
      boolean onlyRevisionDiffered =
          current.revision() > staleLease.revision()
              && after.revision() == current.revision()
              && after.nextAction().equals("deliver")
              && after.leaseOwner().filter("worker-a"::equals).isPresent()
              && after.leaseLive();
      String heldWrite =
          stack
              .ledger
              .write(delivered, "worker-a", staleLease.revision(), "delivered")
              .map(accepted -> accepted ? "applied" : "denied")
              .orElseThrow();
      double frozenSeconds = (System.nanoTime() - frozenAt) / 1e9;
      frozen.thaw();
      linkReplacement.letThrough();

      DrillFigures figures =
          stack
              .settle(Duration.ofSeconds(180))
              .with("frozen_s", String.format(Locale.ROOT, "%.1f", frozenSeconds))
              .with("operations_taken_over", unfinished.size())
              .with("held_write", heldWrite)
              .with("held_write_revision", staleLease.revision() + "/" + current.revision())
              .report();
      // Without a denial the thawed worker never tried to write, and the fence went untested.
      assertThat(figures.staleWritesDenied()).as("late writes of the thawed worker").isPositive();
      assertThat(onlyRevisionDiffered)
          .as(
              "worker-a's held write met the replacement's live deliver lease under the same"
                  + " owner (only the revision differed): before %s, after %s",
              current, after)
          .isTrue();
    }
  }

  /** What only the write that records an operation's delivery binds: its artifacts' keys. */
  private static String manifestOf(String operationId) {
    return "generations/" + operationId + "/";
  }

  private static boolean written(DrillStack stack, String operation, long revision) {
    try {
      return stack.ledger.write(operation, "worker-a", revision, "delivered").isPresent();
    } catch (java.sql.SQLException e) {
      return false;
    }
  }
}
