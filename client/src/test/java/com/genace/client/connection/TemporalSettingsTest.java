package com.genace.client.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TemporalSettingsTest {

  @Test
  void defaults_are_the_local_dev_server_and_namespace_default() {
    TemporalSettings settings = TemporalSettings.fromEnvironment(Map.of());

    assertThat(settings.address()).isEqualTo("127.0.0.1:7233");
    assertThat(settings.namespace()).isEqualTo("default");
    assertThat(settings.tls()).isFalse();
  }

  @Test
  void an_api_key_implies_tls_and_is_never_shown() {
    TemporalSettings settings =
        TemporalSettings.fromEnvironment(
            Map.of(
                "TEMPORAL_ADDRESS", "ns.tmprl.cloud:7233",
                "TEMPORAL_NAMESPACE", "prod",
                "TEMPORAL_API_KEY", "s3cret"));

    assertThat(settings.tls()).isTrue();
    assertThat(settings.toString())
        .isEqualTo("ns.tmprl.cloud:7233 (namespace prod, TLS, API key set)")
        .doesNotContain("s3cret");
  }

  @Test
  void a_malformed_tls_flag_names_the_variable() {
    assertThatThrownBy(() -> TemporalSettings.fromEnvironment(Map.of("TEMPORAL_TLS", "maybe")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TEMPORAL_TLS must be true or false");
  }

  @Test
  void a_namespace_beyond_temporal_limits_names_the_variable() {
    assertThatThrownBy(
            () -> TemporalSettings.fromEnvironment(Map.of("TEMPORAL_NAMESPACE", "n".repeat(1001))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TEMPORAL_NAMESPACE must be a namespace name");
  }
}
