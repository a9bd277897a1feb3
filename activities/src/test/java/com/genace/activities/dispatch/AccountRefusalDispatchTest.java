package com.genace.activities.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.controls.WorkerControls;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A refusal of the account leaves the operation dispatchable and stops every other POST. */
@ExtendWith(DatabaseExtension.class)
class AccountRefusalDispatchTest {

  private GenaceSimulator genace;

  @BeforeEach
  void start() {
    genace = GenaceSimulator.builder().seed(2).start();
  }

  @AfterEach
  void stop() {
    genace.close();
  }

  @Test
  void a_401_leaves_the_operation_pending_and_opens_the_circuit_for_the_next_post(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    ledger.create(new NewOperation("op-1", "image-v1", "{\"prompt\":\"fox\"}"));
    ledger.create(new NewOperation("op-2", "image-v1", "{\"prompt\":\"owl\"}"));
    genace.setFaults(Faults.DEFAULT.withRefuseStatus(401).withRefuseRate(1));
    DispatchActivitiesImpl workerA = dispatcher(ledger, db, "worker-a");
    DispatchActivitiesImpl workerB = dispatcher(ledger, db, "worker-b");

    DispatchResult refused = workerA.dispatch("op-1");
    DispatchResult held = workerB.dispatch("op-2");

    assertThat(refused.outcome()).isEqualTo(DispatchOutcome.ACCOUNT_REFUSED);
    assertThat(refused.detail()).contains("genace_auth_refused", "HTTP 401");
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.PENDING);
    assertThat(row.dispatchOutcome()).contains("account_refused");
    assertThat(row.reviewReason()).isEmpty();
    assertThat(held).isEqualTo(DispatchResult.of(DispatchOutcome.PAUSED, "genace_auth_refused"));
    assertThat(ledger.get("op-2").phase()).isEqualTo(Phase.PENDING);
    assertThat(genace.stats().postsTotal()).as("worker-b sent nothing").isEqualTo(1);
  }

  @Test
  void a_422_fails_only_its_operation_and_leaves_dispatch_running(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    ledger.create(new NewOperation("op-bad", "image-v1", "{\"prompt\":42}"));
    ledger.create(new NewOperation("op-good", "image-v1", "{\"prompt\":\"owl\"}"));
    DispatchActivitiesImpl worker = dispatcher(ledger, db, "worker-a");

    assertThat(worker.dispatch("op-bad").outcome()).isEqualTo(DispatchOutcome.REFUSED);
    assertThat(worker.dispatch("op-good").outcome()).isEqualTo(DispatchOutcome.ACCEPTED);

    assertThat(ledger.get("op-bad").phase()).isEqualTo(Phase.FAILED);
    assertThat(new WorkerControls(db).dispatchPause()).isEmpty();
  }

  @Test
  void a_fleet_pause_this_worker_has_not_seen_yet_stops_the_claim_itself_and_writes_nothing(
      DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    ledger.create(new NewOperation("op-1", "image-v1", "{\"prompt\":\"fox\"}"));
    OperationRow before = ledger.get("op-1");
    int rowsBefore = ledger.history("op-1").size();
    new WorkerControls(db).pauseDispatch("alice", "maintenance");
    // The worker's own gate is open: its readiness loop has not read the pause yet.
    DispatchResult held = dispatcher(ledger, db, "worker-a").dispatch("op-1");

    assertThat(held).isEqualTo(DispatchResult.of(DispatchOutcome.PAUSED, "dispatch_paused"));
    OperationRow after = ledger.get("op-1");
    assertThat(after.phase()).isEqualTo(Phase.PENDING);
    assertThat(after.revision()).isEqualTo(before.revision());
    assertThat(after.leaseOwner()).isEmpty();
    assertThat(ledger.history("op-1")).hasSize(rowsBefore);
    assertThat(genace.stats().postsTotal()).isZero();
  }

  private DispatchActivitiesImpl dispatcher(OperationsLedger ledger, DataSource db, String id) {
    return SimulatorDispatchers.dispatcher(genace, ledger, db, id);
  }
}
