package com.genace.activities.controls;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.genace.AccountProblem;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The circuit on the real fleet-wide pause, and the probe that closes it, over real HTTP. */
@ExtendWith(DatabaseExtension.class)
class DispatchCircuitTest {

  @Test
  void a_trip_pauses_dispatch_for_every_worker_with_the_problem_as_its_reason(DataSource db) {
    DispatchCircuit tripping = new DispatchCircuit(new WorkerControls(db), "worker-a");
    DispatchCircuit other = new DispatchCircuit(new WorkerControls(db), "worker-b");

    assertThat(tripping.open(AccountProblem.AUTHENTICATION, "HTTP 401: revoked")).isTrue();

    assertThat(other.closedReason()).contains("genace_auth_refused");
    DispatchCircuit.Trip trip = other.current().orElseThrow();
    assertThat(trip.problem()).isEqualTo(AccountProblem.AUTHENTICATION);
    assertThat(trip.trippedBy()).isEqualTo("worker-a");
    assertThat(trip.detail()).isEqualTo("HTTP 401: revoked");
    assertThat(new WorkerControls(db).dispatchPause().orElseThrow().reason())
        .isEqualTo("genace_auth_refused: HTTP 401: revoked");
  }

  @Test
  void a_second_trip_leaves_the_first_as_it_was(DataSource db) {
    DispatchCircuit circuit = new DispatchCircuit(new WorkerControls(db), "worker-a");
    circuit.open(AccountProblem.CREDITS, "HTTP 402");

    assertThat(circuit.open(AccountProblem.AUTHENTICATION, "HTTP 401")).isFalse();

    assertThat(circuit.current().orElseThrow().problem()).isEqualTo(AccountProblem.CREDITS);
  }

  @Test
  void an_operators_pause_is_never_replaced_nor_lifted_by_the_circuit(DataSource db) {
    WorkerControls operator = new WorkerControls(db);
    DispatchCircuit circuit = new DispatchCircuit(new WorkerControls(db), "worker-a");
    operator.pauseDispatch("alice", "provider incident");

    assertThat(circuit.open(AccountProblem.AUTHENTICATION, "HTTP 401")).isFalse();

    assertThat(circuit.current()).isEmpty();
    assertThat(circuit.closedReason()).contains("dispatch_paused");
    assertThat(operator.dispatchPause().orElseThrow().pausedBy()).isEqualTo("alice");
  }

  @Test
  void closing_lifts_only_the_pause_that_was_read(DataSource db) {
    WorkerControls operator = new WorkerControls(db);
    DispatchCircuit circuit = new DispatchCircuit(new WorkerControls(db), "worker-a");
    circuit.open(AccountProblem.AUTHENTICATION, "HTTP 401");
    DispatchCircuit.Trip read = circuit.current().orElseThrow();
    operator.pauseDispatch("alice", "hold everything"); // between the read and the close

    assertThat(circuit.close(read, "probe passed")).isFalse();

    assertThat(operator.dispatchPause().orElseThrow().pausedBy()).isEqualTo("alice");
    operator.resumeDispatch("alice", "done");
    assertThat(circuit.closedReason()).isEmpty();
  }

  @Test
  void the_probe_closes_an_auth_circuit_only_once_the_model_list_answers(DataSource db) {
    try (GenaceSimulator genace = GenaceSimulator.builder().seed(1).start()) {
      DispatchCircuit circuit = new DispatchCircuit(new WorkerControls(db), "worker-a");
      CircuitProbe probe = new CircuitProbe(circuit, client(genace));
      genace.setFaults(Faults.DEFAULT.withRefuseStatus(401).withRefuseRate(1));
      circuit.open(AccountProblem.AUTHENTICATION, "HTTP 401: revoked");

      assertThat(probe.probe()).isFalse();
      assertThat(circuit.closedReason()).contains("genace_auth_refused");

      genace.setFaults(Faults.DEFAULT);
      assertThat(probe.probe()).isTrue();
      assertThat(circuit.closedReason()).isEmpty();
      assertThat(genace.stats().postsTotal()).isZero();
    }
  }

  @Test
  void the_probe_leaves_a_credits_circuit_to_the_operator(DataSource db) {
    try (GenaceSimulator genace = GenaceSimulator.builder().seed(1).start()) {
      DispatchCircuit circuit = new DispatchCircuit(new WorkerControls(db), "worker-a");
      circuit.open(AccountProblem.CREDITS, "HTTP 402: empty");

      assertThat(new CircuitProbe(circuit, client(genace)).probe()).isFalse();

      assertThat(circuit.closedReason()).contains("genace_credits_exhausted");
      new WorkerControls(db).resumeDispatch("alice", "credits added");
      assertThat(circuit.closedReason()).isEmpty();
    }
  }

  @Test
  void none_never_opens_and_never_holds_a_post_back() {
    assertThat(DispatchCircuit.NONE.open(AccountProblem.CREDITS, "HTTP 402")).isFalse();
    assertThat(DispatchCircuit.NONE.closedReason()).isEmpty();
  }

  private static HttpGenaceClient client(GenaceSimulator genace) {
    return new HttpGenaceClient(
        GenaceClientConfig.of(genace.baseUrl(), "sk-test")
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2)));
  }
}
