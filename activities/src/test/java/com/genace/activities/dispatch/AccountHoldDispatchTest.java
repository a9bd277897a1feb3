package com.genace.activities.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.controls.WorkerControls;
import com.genace.activities.ledger.AccountRestrictions;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A 429 for one account's traffic holds that account's dispatch, on every worker, for its {@code
 * Retry-After}, and no other account's: the held operations wait pending without a POST.
 */
@ExtendWith(DatabaseExtension.class)
class AccountHoldDispatchTest {

  private GenaceSimulator genace;

  @BeforeEach
  void start() {
    genace = GenaceSimulator.builder().seed(3).start();
  }

  @AfterEach
  void stop() {
    genace.close();
  }

  private static void create(OperationsLedger ledger, String id, String account) {
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"fox\"}", account));
  }

  @Test
  void a_429_holds_its_account_on_every_worker_and_no_other_account(DataSource db) {
    OperationsLedger ledgerA = new OperationsLedger(db);
    create(ledgerA, "big-1", "big");
    create(ledgerA, "big-2", "big");
    create(ledgerA, "small-1", "small");
    genace.setFaults(Faults.DEFAULT.withRate429(1).withRate429Prefix("big-").withRetryAfterS(30));
    DispatchActivitiesImpl workerA = dispatcher(ledgerA, db, "worker-a");
    // Another worker: its own ledger, its own cached read of the holds.
    DispatchActivitiesImpl workerB = dispatcher(new OperationsLedger(db), db, "worker-b");

    DispatchResult limited = workerA.dispatch("big-1");
    DispatchResult heldHere = workerA.dispatch("big-2");
    DispatchResult heldThere = workerB.dispatch("big-2");
    DispatchResult small = workerB.dispatch("small-1");

    assertThat(limited.outcome()).isEqualTo(DispatchOutcome.RATE_LIMITED);
    for (DispatchResult held : List.of(heldHere, heldThere)) {
      assertThat(held.outcome()).isEqualTo(DispatchOutcome.ALLOWANCE_EXHAUSTED);
      assertThat(held.detail())
          .startsWith("account big is held for ")
          .endsWith("Genace answered 429 to operation big-1's POST");
      assertThat(held.retryAfterMillis()).isBetween(20_000L, 30_000L);
    }
    assertThat(genace.stats().postsFor("big-2")).as("held: never sent").isZero();
    assertThat(ledgerA.accounts().restrictions().current().held("big", "big-1"))
        .as("big-1 waits its own Retry-After in its workflow, not the hold it caused")
        .isEmpty();
    OperationRow big2 = ledgerA.get("big-2");
    assertThat(big2.phase()).isEqualTo(Phase.PENDING);
    assertThat(big2.leaseOwner()).isEmpty();
    assertThat(small.outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(new WorkerControls(db).dispatchPause()).as("nothing fleet-wide").isEmpty();
    assertThat(ledgerA.accounts().restrictions().heldNow())
        .singleElement()
        .satisfies(
            hold -> {
              assertThat(hold.account()).isEqualTo("big");
              assertThat(hold.heldBy()).isEqualTo("worker-a");
            });
  }

  @Test
  void a_hold_ends_with_its_retry_after_and_the_account_is_sent_again(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    create(ledger, "big-1", "big");
    create(ledger, "big-2", "big");
    genace.setFaults(Faults.DEFAULT.withRate429(1).withRate429Prefix("big-").withRetryAfterS(1));
    DispatchActivitiesImpl worker = dispatcher(ledger, db, "worker-a");
    assertThat(worker.dispatch("big-1").outcome()).isEqualTo(DispatchOutcome.RATE_LIMITED);
    genace.setFaults(Faults.DEFAULT);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ledger.accounts().restrictions().heldNow().isEmpty());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ledger.accounts().restrictions().current().held("big", "big-2").isEmpty());

    assertThat(worker.dispatch("big-2").outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(genace.stats().postsFor("big-2")).isEqualTo(1);
  }

  @Test
  void a_shorter_hold_never_shortens_one_in_force(DataSource db) {
    AccountRestrictions restrictions = new OperationsLedger(db).accounts().restrictions();

    restrictions.hold("big", "big-1", Duration.ofSeconds(60), "first", "worker-a");
    restrictions.hold("big", "big-2", Duration.ofSeconds(1), "second", "worker-b");

    AccountRestrictions.HeldAccount hold = restrictions.heldNow().get(0);
    assertThat(Duration.between(hold.heldSince(), hold.heldUntil()))
        .isGreaterThan(Duration.ofSeconds(55));
    assertThat(restrictions.current().held("big", "big-3").orElseThrow().remaining())
        .isGreaterThan(Duration.ofSeconds(55));
  }

  private DispatchActivitiesImpl dispatcher(OperationsLedger ledger, DataSource db, String id) {
    return SimulatorDispatchers.dispatcher(genace, ledger, db, id);
  }
}
