package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.controls.DispatchPause;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Readiness, the status document and the gauge say why the circuit holds dispatch back. */
class CircuitReportTest {

  private static final Instant SINCE = Instant.parse("2026-11-30T12:00:00Z");

  private final WorkerState state = new WorkerState(Clock.systemUTC(), 4);
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @Test
  void an_open_auth_circuit_is_the_reason_dispatch_is_not_ready() {
    started(new DispatchPause("circuit:worker-a", "genace_auth_refused: HTTP 401: revoked", SINCE));

    assertThat(state.readiness()).isEqualTo(new Readiness(false, true, "genace_auth_refused"));
    assertThat(state.closedReason()).contains("genace_auth_refused");
  }

  @Test
  void the_status_document_shows_the_circuit_and_how_it_closes() throws Exception {
    started(new DispatchPause("circuit:worker-a", "genace_credits_exhausted: HTTP 402", SINCE));
    ObjectNode status = new ObjectMapper().createObjectNode();

    CircuitReport.addTo(status, state);

    assertThat(status.get("dispatch_circuit").toString())
        .isEqualTo(
            "{\"open\":true,\"reason\":\"genace_credits_exhausted\","
                + "\"since\":\"2026-11-30T12:00:00Z\",\"opened_by\":\"worker-a\","
                + "\"detail\":\"HTTP 402\","
                + "\"closes\":\"on ops resume-dispatch once credits are added\"}");
  }

  @Test
  void the_gauge_is_one_for_the_open_reason_only() {
    started(new DispatchPause("circuit:worker-a", "genace_auth_refused: HTTP 403", SINCE));

    CircuitReport.register(registry, state);

    assertThat(registry.scrape())
        .contains("genace_dispatch_circuit_open{reason=\"genace_auth_refused\",} 1.0")
        .contains("genace_dispatch_circuit_open{reason=\"genace_credits_exhausted\",} 0.0");
  }

  @Test
  void an_operators_pause_is_a_plain_pause_and_no_circuit() {
    started(new DispatchPause("alice", "genace_auth_refused", SINCE));
    ObjectNode status = new ObjectMapper().createObjectNode();
    CircuitReport.addTo(status, state);
    CircuitReport.register(registry, state);

    assertThat(state.readiness().reason()).isEqualTo("dispatch_paused");
    assertThat(status.get("dispatch_circuit").toString()).isEqualTo("{\"open\":false}");
    assertThat(registry.scrape())
        .contains("genace_dispatch_circuit_open{reason=\"genace_auth_refused\",} 0.0");
  }

  private void started(DispatchPause pause) {
    state.startupProblem(null);
    state.ledgerChecked(Optional.of(pause), Optional.empty());
  }
}
