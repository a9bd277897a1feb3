package com.genace.client.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiKeyFileTest {

  @TempDir Path dir;

  @Test
  void a_key_rotated_in_its_file_is_the_one_sent_from_then_on() throws Exception {
    Path file = dir.resolve("temporal-api-key");
    Files.writeString(file, "key-one\n");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
    ApiKeyFile key = new ApiKeyFile(file);

    assertThat(key.get()).isEqualTo("key-one");
    Files.writeString(file, "key-two\n");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now()));
    assertThat(key.get()).isEqualTo("key-two");
  }

  @Test
  void the_file_turns_tls_on_and_never_shows_in_the_settings() throws Exception {
    Path file = Files.writeString(dir.resolve("key"), "secret-key");

    TemporalSettings settings =
        TemporalSettings.fromEnvironment(Map.of("TEMPORAL_API_KEY_FILE", file.toString()));

    assertThat(settings.tls()).isTrue();
    assertThat(settings.toString()).contains("API key set").doesNotContain("secret-key");
    assertThatThrownBy(
            () ->
                TemporalSettings.fromEnvironment(
                    Map.of("TEMPORAL_API_KEY_FILE", file.toString(), "TEMPORAL_API_KEY", "k")))
        .hasMessage("TEMPORAL_API_KEY and TEMPORAL_API_KEY_FILE: set one of them");
  }
}
