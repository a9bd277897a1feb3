package com.genace.activities.dispatch;

import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.controls.WorkerControls;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.stats.ActivityStats;
import com.genace.testkit.simulator.GenaceSimulator;
import java.time.Duration;
import javax.sql.DataSource;

/** A worker's dispatch activity over the simulator, with the fleet's circuit in {@code db}. */
final class SimulatorDispatchers {

  private SimulatorDispatchers() {}

  /** As worker {@code id}: its gate open, no allowance, 2 s HTTP timeouts. */
  static DispatchActivitiesImpl dispatcher(
      GenaceSimulator genace, OperationsLedger ledger, DataSource db, String id) {
    return new DispatchActivitiesImpl(
        ledger,
        new HttpGenaceClient(
            GenaceClientConfig.of(genace.baseUrl(), "sk-test")
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2))),
        id,
        DispatchGate.OPEN,
        DispatchListener.NONE,
        SpendingAllowance.UNLIMITED,
        new DispatchCircuit(new WorkerControls(db), id),
        ActivityStats.NONE);
  }
}
