package com.genace.activities.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.controls.WorkerControls;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationRequest;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.dispatch.DispatchActivities;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The first dispatch attempt registers the operation, then dispatches it: against the real ledger
 * and the simulator over HTTP.
 */
@ExtendWith(DatabaseExtension.class)
class RegisterAndDispatchTest {

  private static final GenerationRequest FOX =
      new GenerationRequest("op-first", "image-v1", "{\"prompt\":\"fox\"}");

  private GenaceSimulator genace;

  @BeforeEach
  void start() {
    genace = GenaceSimulator.builder().seed(3).start();
  }

  @AfterEach
  void stop() {
    genace.close();
  }

  @Test
  void registers_the_operation_then_posts_it_once(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);

    DispatchResult result = dispatcher(new OperationsLedger(db), db).registerAndDispatch(FOX);

    assertThat(result.outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(ledger.get("op-first").phase()).isEqualTo(Phase.OBSERVING);
    assertThat(ledger.history("op-first"))
        .extracting(TransitionRow::event)
        .startsWith("created", "submitting");
    assertThat(genace.stats().postsFor("op-first")).isEqualTo(1);
  }

  @Test
  void an_operation_registered_already_is_dispatched_as_it_stands(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    ledger.create(new NewOperation("op-first", "image-v1", "{\"prompt\":\"fox\"}"));

    DispatchResult result = dispatcher(ledger, db).registerAndDispatch(FOX);

    assertThat(result.outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(ledger.history("op-first")).filteredOn(t -> t.event().equals("created")).hasSize(1);
  }

  @Test
  void a_paused_fleet_still_registers_the_operation_and_sends_nothing(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    new WorkerControls(db).pauseDispatch("alice", "maintenance");

    DispatchResult result = dispatcher(ledger, db).registerAndDispatch(FOX);

    assertThat(result).isEqualTo(DispatchResult.of(DispatchOutcome.PAUSED, "dispatch_paused"));
    assertThat(ledger.get("op-first").phase()).isEqualTo(Phase.PENDING);
    assertThat(ledger.get("op-first").leaseOwner()).isEmpty();
    assertThat(genace.stats().postsTotal()).isZero();
  }

  @Test
  void a_ledger_out_of_reach_fails_as_not_registered_before_anything_is_sent(DataSource db) {
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setUrl("jdbc:postgresql://127.0.0.1:1/genace"); // nothing listens on port 1
    nowhere.setConnectTimeout(2);

    ApplicationFailure failure =
        catchThrowableOfType(
            ApplicationFailure.class,
            () -> dispatcher(new OperationsLedger(nowhere), db).registerAndDispatch(FOX));

    assertThat(failure.getType()).isEqualTo(DispatchActivities.NOT_REGISTERED);
    assertThat(failure.isNonRetryable()).isTrue();
    assertThat(genace.stats().postsTotal()).isZero();
  }

  private DispatchActivitiesImpl dispatcher(OperationsLedger ledger, DataSource controls) {
    return new DispatchActivitiesImpl(
        ledger,
        new HttpGenaceClient(
            GenaceClientConfig.of(genace.baseUrl(), "sk-test")
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2))),
        "worker-a",
        DispatchGate.OPEN,
        DispatchListener.NONE,
        SpendingAllowance.UNLIMITED,
        new DispatchCircuit(new WorkerControls(controls), "worker-a"),
        ActivityStats.NONE);
  }
}
