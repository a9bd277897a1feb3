package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Random interleavings of claims, renewals, snapshots (fenced, and a poll's without a lease),
 * deliveries, releases and clock advances by three workers on one operation. Whatever the order: a
 * fenced write applies only under the current, unexpired, unreleased lease, and such a lease is
 * never denied; a poll's write applies only where no other owner's lease is live; remote state
 * never moves backwards.
 */
class LeaseSafetyPropertyTest {

  enum Kind {
    CLAIM,
    RENEW,
    SNAPSHOT,
    OBSERVED,
    DELIVER,
    RELEASE,
    EXPIRE
  }

  /** {@code age} 0 uses the worker's newest lease, higher values older (stale) ones. */
  record Step(Kind kind, int worker, RemoteStatus status, int age) {}

  private final OperationsLedger ledger = new OperationsLedger(TestDatabase.dataSource());
  private final LedgerFixtures fixtures = LedgerFixtures.over(ledger, TestDatabase.dataSource());

  @Property(tries = 60)
  void stale_leases_never_write_and_state_never_moves_backwards(
      @ForAll("steps") @Size(min = 5, max = 40) List<Step> steps) {
    String id = "prop-" + UUID.randomUUID();
    fixtures.observing(id, "gen_" + id);
    List<List<Lease>> held = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    Lease current = null; // the one lease the model says is valid, if any

    for (Step step : steps) {
      OperationRow before = ledger.get(id);
      List<Lease> leases = held.get(step.worker());
      Lease mine =
          leases.isEmpty() ? null : leases.get(Math.max(0, leases.size() - 1 - step.age()));
      boolean valid = mine != null && mine.equals(current) && mine.action() == before.nextAction();
      switch (step.kind()) {
        case CLAIM -> {
          NextAction action =
              before.nextAction() == NextAction.NONE ? NextAction.OBSERVE : before.nextAction();
          ClaimResult result = ledger.claim(id, "worker-" + step.worker(), action);
          if (result instanceof ClaimResult.Acquired acquired) {
            // Only a free lease, an expired one or the claimer's own can be taken; taking its
            // own again fences the older revision.
            assertThat(current == null || current.owner().equals(acquired.lease().owner()))
                .as("claim while another owner's lease is live")
                .isTrue();
            leases.add(acquired.lease());
            current = acquired.lease();
          }
        }
        case RENEW -> {
          if (mine != null) {
            RenewResult result = ledger.renew(mine);
            assertThat(result instanceof RenewResult.Renewed).isEqualTo(valid);
            if (result instanceof RenewResult.Renewed renewed) {
              leases.set(leases.indexOf(mine), renewed.lease());
              current = renewed.lease();
            }
          }
        }
        case SNAPSHOT -> {
          if (mine != null && mine.action() == NextAction.OBSERVE) {
            WriteResult result = ledger.recordSnapshot(mine, step.status(), "{}", "x");
            assertThat(result == WriteResult.DENIED).isEqualTo(!valid);
            if (result == WriteResult.APPLIED && step.status().isTerminal()) {
              current = null; // a terminal snapshot ends the observe lease
            }
          }
        }
        case OBSERVED -> {
          // A poll's write without a lease: it may apply only where no other owner's lease is
          // live, while observing, for a newer status; it frees the lease and fences all others.
          String owner = "worker-" + step.worker();
          boolean free = current == null || current.owner().equals(owner);
          boolean newer =
              before.phase() == Phase.OBSERVING
                  && before.nextAction() == NextAction.OBSERVE
                  && step.status().rank()
                      > before.remoteStatus().map(RemoteStatus::rank).orElse(-1);
          ObservedSnapshot result =
              ledger.recordObservedSnapshot(id, owner, "gen_" + id, step.status(), "{}", "x");
          assertThat(result instanceof ObservedSnapshot.Recorded).isEqualTo(free && newer);
          if (result instanceof ObservedSnapshot.Recorded) {
            current = null;
          }
        }
        case DELIVER -> {
          if (mine != null && mine.action() == NextAction.DELIVER) {
            WriteResult result = ledger.recordDelivered(mine, "{}");
            assertThat(result == WriteResult.DENIED).isEqualTo(!valid);
            if (result == WriteResult.APPLIED) {
              current = null;
            }
          }
        }
        case RELEASE -> {
          if (mine != null) {
            WriteResult result = ledger.release(mine);
            assertThat(result == WriteResult.APPLIED).isEqualTo(valid);
            if (result == WriteResult.APPLIED) {
              current = null;
            }
          }
        }
        case EXPIRE -> {
          fixtures.expireLease(id);
          current = null;
        }
      }
      OperationRow after = ledger.get(id);
      assertMonotonic(before, after);
    }
  }

  private static void assertMonotonic(OperationRow before, OperationRow after) {
    assertThat(after.revision()).isGreaterThanOrEqualTo(before.revision());
    int rankBefore = before.remoteStatus().map(RemoteStatus::rank).orElse(-1);
    int rankAfter = after.remoteStatus().map(RemoteStatus::rank).orElse(-1);
    assertThat(rankAfter).isGreaterThanOrEqualTo(rankBefore);
    if (before.remoteStatus().map(RemoteStatus::isTerminal).orElse(false)) {
      assertThat(after.remoteStatus()).isEqualTo(before.remoteStatus());
    }
    if (before.phase().isTerminal()) {
      assertThat(after.phase()).isEqualTo(before.phase());
    }
    assertThat(after.phase().nextAction()).isEqualTo(after.nextAction());
    if (before.phase() == Phase.DELIVERING) {
      assertThat(after.phase()).isIn(Phase.DELIVERING, Phase.DELIVERED);
    }
  }

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Step> step =
        Combinators.combine(
                Arbitraries.of(Kind.class),
                Arbitraries.integers().between(0, 2),
                Arbitraries.of(RemoteStatus.class),
                Arbitraries.integers().between(0, 2))
            .as(Step::new);
    return step.list();
  }
}
