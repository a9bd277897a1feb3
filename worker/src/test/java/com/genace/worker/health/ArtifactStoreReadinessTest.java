package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An artifact store that does not answer holds back observation and delivery, while it lasts. */
class ArtifactStoreReadinessTest {

  private final WorkerState state = new WorkerState(Clock.systemUTC(), 2);

  @Test
  void an_unreachable_store_makes_observation_and_delivery_not_ready_until_it_answers() {
    state.startupProblem(null);
    state.ledgerChecked(Optional.empty(), Optional.empty());
    assertThat(state.readiness().acceptingObservation()).isTrue();

    state.artifactStore(Optional.of("GENACE_ARTIFACT_URL=s3://b/p: bucket b does not exist"));

    Readiness down = state.readiness();
    assertThat(down.acceptingObservation()).isFalse();
    assertThat(down.reason()).isEqualTo("artifact_store_unavailable");
    // A POST needs no store: its render waits in Genace until delivery can run.
    assertThat(down.acceptingDispatch()).isTrue();
    assertThat(state.closedReason()).isEmpty();

    state.artifactStore(Optional.empty());

    assertThat(state.readiness().acceptingObservation()).isTrue();
    assertThat(state.readiness().reason()).isEqualTo("ready");
  }
}
