package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An artifact store that does not answer holds back both kinds of work, and only while it lasts.
 */
class ArtifactStoreReadinessTest {

  private final WorkerState state = new WorkerState(Clock.systemUTC(), 2);

  @Test
  void an_unreachable_store_makes_the_worker_not_ready_and_closes_the_dispatch_gate() {
    state.startupProblem(null);
    state.ledgerChecked(Optional.empty(), Optional.empty());
    assertThat(state.readiness().acceptingDispatch()).isTrue();

    state.artifactStore(Optional.of("GENACE_ARTIFACT_URL=s3://b/p: bucket b does not exist"));

    Readiness down = state.readiness();
    assertThat(down.acceptingDispatch()).isFalse();
    assertThat(down.acceptingObservation()).isFalse();
    assertThat(down.reason()).isEqualTo("artifact_store_unavailable");
    assertThat(state.closedReason()).contains("artifact_store_unavailable");

    state.artifactStore(Optional.empty());

    assertThat(state.readiness().acceptingDispatch()).isTrue();
    assertThat(state.readiness().acceptingObservation()).isTrue();
    assertThat(state.closedReason()).isEmpty();
  }
}
