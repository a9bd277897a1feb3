package com.genace.worker.temporal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The documented way for an application to build its client from the CLI's environment. */
class TemporalConnectionTest {

  @Test
  void from_the_environment_a_malformed_variable_or_an_unreachable_address_is_named() {
    assertThatThrownBy(() -> TemporalConnection.fromEnvironment(Map.of("TEMPORAL_TLS", "maybe")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TEMPORAL_TLS");
    assertThatThrownBy(
            () -> TemporalConnection.fromEnvironment(Map.of("TEMPORAL_ADDRESS", "127.0.0.1:1")))
        .isInstanceOf(TemporalUnavailableException.class)
        .hasMessageContaining("cannot reach Temporal at 127.0.0.1:1 (TEMPORAL_ADDRESS)");
  }
}
