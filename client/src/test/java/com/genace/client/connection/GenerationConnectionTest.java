package com.genace.client.connection;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service's connection from the environment: what is wrong is named by its variable, before
 * anything is sent. Connecting through TLS, mutual TLS and an API key, and their rotation, is run
 * against a Temporal server by the worker module's {@code TemporalMutualTlsTest}.
 */
class GenerationConnectionTest {

  @TempDir Path dir;

  @Test
  void a_malformed_variable_or_an_unreachable_address_is_named() {
    assertThatThrownBy(() -> GenerationConnection.fromEnvironment(Map.of("TEMPORAL_TLS", "maybe")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TEMPORAL_TLS");
    assertThatThrownBy(
            () -> GenerationConnection.fromEnvironment(Map.of("TEMPORAL_ADDRESS", "127.0.0.1:1")))
        .isInstanceOf(TemporalUnavailableException.class)
        .hasMessageContaining("cannot reach Temporal at 127.0.0.1:1 (TEMPORAL_ADDRESS)");
  }

  @Test
  void half_a_client_certificate_or_an_unreadable_file_is_refused_naming_the_variable()
      throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_TLS_CERT_FILE", dir.resolve("tls.crt").toString());

    assertThatThrownBy(() -> GenerationConnection.fromEnvironment(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TEMPORAL_TLS_CERT_FILE: cannot read " + dir.resolve("tls.crt"));
    env.put("TEMPORAL_TLS_CERT_FILE", Files.writeString(dir.resolve("tls.crt"), "").toString());
    assertThatThrownBy(() -> GenerationConnection.fromEnvironment(env))
        .hasMessage(
            "TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together: set both or neither");
    env.remove("TEMPORAL_TLS_CERT_FILE");
    env.put("TEMPORAL_TLS_KEY_FILE", Files.writeString(dir.resolve("tls.key"), "").toString());
    assertThatThrownBy(() -> GenerationConnection.fromEnvironment(env))
        .hasMessage(
            "TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together: set both or neither");
    env.remove("TEMPORAL_TLS_KEY_FILE");
    env.put("TEMPORAL_API_KEY_FILE", dir.resolve("api-key").toString());
    assertThatThrownBy(() -> GenerationConnection.fromEnvironment(env))
        .hasMessage("TEMPORAL_API_KEY_FILE: cannot read " + dir.resolve("api-key"));
  }

  @Test
  void a_file_that_holds_no_certificate_or_key_is_refused_naming_the_variable() throws Exception {
    Path notPem = Files.writeString(dir.resolve("ca.crt"), "not a certificate\n");

    assertThatThrownBy(
            () ->
                GenerationConnection.fromEnvironment(
                    Map.of("TEMPORAL_TLS_CA_FILE", notPem.toString())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TEMPORAL_TLS_CA_FILE: cannot use " + notPem);
    assertThatThrownBy(
            () ->
                GenerationConnection.fromEnvironment(
                    Map.of(
                        "TEMPORAL_TLS_CERT_FILE", notPem.toString(),
                        "TEMPORAL_TLS_KEY_FILE", notPem.toString())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "TEMPORAL_TLS_CERT_FILE / TEMPORAL_TLS_KEY_FILE: cannot use " + notPem);
  }
}
