package com.genace.worker.health;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.genace.AccountProblem;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;

/**
 * The fleet-wide dispatch circuit as operators see it: a {@code dispatch_circuit} object in the
 * status document, and the gauge {@code genace_dispatch_circuit_open{reason}} to alert on (Genace
 * refuses the account: nothing is dispatched until the key or the credits are fixed). Both read the
 * fleet pause this worker refreshes every second.
 */
final class CircuitReport {

  private CircuitReport() {}

  static void addTo(ObjectNode status, WorkerState state) {
    Optional<DispatchCircuit.Trip> trip = trip(state);
    ObjectNode circuit = status.putObject("dispatch_circuit");
    circuit.put("open", trip.isPresent());
    trip.ifPresent(
        t ->
            circuit
                .put("reason", t.problem().wire())
                .put("since", t.pause().since().toString())
                .put("opened_by", t.trippedBy())
                .put("detail", t.detail())
                .put(
                    "closes",
                    t.problem() == AccountProblem.AUTHENTICATION
                        ? "by itself once the model list answers, or on ops resume-dispatch"
                        : "on ops resume-dispatch once credits are added"));
  }

  static void register(MeterRegistry registry, WorkerState state) {
    for (AccountProblem problem : AccountProblem.values()) {
      Gauge.builder(
              "genace_dispatch_circuit_open",
              () -> trip(state).filter(t -> t.problem() == problem).isPresent() ? 1 : 0)
          .tag("reason", problem.wire())
          .description("1 while Genace refuses the account and dispatch is paused fleet-wide")
          .register(registry);
    }
  }

  private static Optional<DispatchCircuit.Trip> trip(WorkerState state) {
    return state.fleetPause().flatMap(DispatchCircuit::tripOf);
  }
}
