package com.genace.ops.faults;

import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.FaultProxy;
import com.genace.ops.faults.support.PostgresServer;
import com.genace.ops.faults.support.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill 5: the links between the workers and Genace, and between the workers and PostgreSQL, cut,
 * half-open and slow in turn (in an order the random seed decides), each while operations are in
 * flight.
 */
@Tag("faults")
class NetworkFaultDrillTest {

  static final Duration FAULT = Duration.ofSeconds(6);
  static final int OPERATIONS_PER_FAULT = 3;

  private record Fault(String link, FaultProxy proxy, FaultProxy.Mode mode) {}

  @Test
  void broken_links_lose_nothing_and_cause_no_second_post() throws Exception {
    long seed = Seeds.next();
    try (DrillStack stack = DrillStack.start("network", seed);
        FaultProxy genace = new FaultProxy(stack.simulator.port());
        FaultProxy database = new FaultProxy(stack.postgres.port())) {
      stack.simulatorControl.faults("{\"latency_ms\": 300, \"job_duration_ms\": 2000}");
      Map<String, String> env = stack.workerEnvironment();
      env.put("GENACE_BASE_URL", "http://127.0.0.1:" + genace.port());
      env.put("DATABASE_URL", PostgresServer.url(database.port()));
      DrillWorker a = stack.startWorker("worker-a", env);
      DrillWorker b = stack.startWorker("worker-b", env);
      a.awaitReady(Duration.ofSeconds(90));
      b.awaitReady(Duration.ofSeconds(90));

      List<Fault> faults = new ArrayList<>();
      for (FaultProxy.Mode mode :
          List.of(FaultProxy.Mode.CUT, FaultProxy.Mode.HALF_OPEN, FaultProxy.Mode.SLOW)) {
        faults.add(new Fault("genace", genace, mode));
        faults.add(new Fault("postgresql", database, mode));
      }
      Collections.shuffle(faults, new Random(seed));
      List<String> order = new ArrayList<>();
      for (Fault fault : faults) {
        stack.startOperations(OPERATIONS_PER_FAULT);
        // In flight if it gets there soon; the fault comes either way.
        Drills.await(
            Duration.ofSeconds(10),
            () -> stack.phaseCount("submitting") + stack.phaseCount("observing") > 0);
        fault.proxy().mode(fault.mode());
        Thread.sleep(FAULT.toMillis());
        fault.proxy().mode(FaultProxy.Mode.PASS);
        order.add(fault.link() + ":" + fault.mode().name().toLowerCase(java.util.Locale.ROOT));
      }

      stack.settle(Duration.ofSeconds(180)).with("faults", String.join(",", order)).report();
    }
  }
}
