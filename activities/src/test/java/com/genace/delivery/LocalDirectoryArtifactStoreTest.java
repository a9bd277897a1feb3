package com.genace.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalDirectoryArtifactStoreTest {

  @TempDir Path root;

  @Test
  void a_stored_object_is_held_only_with_its_exact_size_and_digest() throws Exception {
    LocalDirectoryArtifactStore store = new LocalDirectoryArtifactStore(root);
    byte[] content = "rendered pixels".getBytes(StandardCharsets.UTF_8);
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    String key = ArtifactKeys.of("op-1", "gen_1", 0, "image/png");
    Path staged = store.stagingFile(key);
    Files.write(staged, content);

    assertThat(store.holds(key, content.length, sha)).isFalse();
    store.put(key, staged);

    assertThat(store.holds(key, content.length, sha)).isTrue();
    assertThat(store.holds(key, content.length + 1, sha)).isFalse();
    assertThat(store.holds(key, content.length, "0".repeat(64))).isFalse();
    assertThat(Files.exists(staged)).isFalse();
    assertThat(Path.of(store.locate(key))).hasBinaryContent(content);
  }

  @Test
  void keys_are_deterministic_and_cannot_escape_the_store() {
    assertThat(ArtifactKeys.of("op-1", "gen_1", 2, "image/png; charset=binary"))
        .isEqualTo("generations/op-1/gen_1/2.png");
    assertThat(ArtifactKeys.of("../../etc", "..", 0, null))
        .isEqualTo("generations/%2E%2E%2F%2E%2E%2Fetc/%2E%2E/0.bin");
    LocalDirectoryArtifactStore store = new LocalDirectoryArtifactStore(root);
    assertThatThrownBy(() -> store.locate("../outside"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("escapes the store");
  }
}
