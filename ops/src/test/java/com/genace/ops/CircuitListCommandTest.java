package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.controls.WorkerControls;
import com.genace.activities.genace.AccountProblem;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.ops.support.CliRunner;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code ops list} says how many operations wait behind an open dispatch circuit. */
@ExtendWith(DatabaseExtension.class)
class CircuitListCommandTest {

  private final OperationsLedger ledger = new OperationsLedger(TestDatabase.dataSource());
  private final WorkerControls controls = new WorkerControls(TestDatabase.dataSource());
  private final Map<String, String> env = Map.of("DATABASE_URL", TestDatabase.databaseUrlValue());

  @Test
  void an_open_circuit_comes_first_with_the_operations_waiting_behind_it() {
    ledger.create(new NewOperation("op-1", "image-v1", "{}"));
    ledger.create(new NewOperation("op-2", "image-v1", "{}"));
    new DispatchCircuit(controls, "worker-a").open(AccountProblem.AUTHENTICATION, "HTTP 401");

    CliRunner.Result result = CliRunner.run(env, "ops", "list");

    assertThat(result.exitCode()).as(result.err()).isZero();
    List<String> lines = result.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("dispatch circuit OPEN (genace_auth_refused since ")
        .endsWith(
            "): 2 operation(s) wait behind it; it closes by itself once the key works, or with"
                + " ops resume-dispatch");
    assertThat(lines.get(1)).startsWith("OPERATION  PHASE");
    assertThat(lines).hasSize(4);
  }

  @Test
  void a_plain_pause_and_the_json_form_show_no_circuit_line() {
    ledger.create(new NewOperation("op-1", "image-v1", "{}"));
    controls.pauseDispatch("alice", "deploy");
    CliRunner.Result plain = CliRunner.run(env, "ops", "list");
    controls.resumeDispatch("alice", "done");
    new DispatchCircuit(controls, "worker-a").open(AccountProblem.CREDITS, "HTTP 402");
    CliRunner.Result json = CliRunner.run(env, "ops", "list", "--json");

    assertThat(plain.out()).doesNotContain("circuit");
    assertThat(json.out()).startsWith("[").doesNotContain("circuit");
  }
}
