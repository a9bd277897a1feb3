package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.delivery.support.Artifacts;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalDirectoryArtifactStoreTest extends ArtifactStoreContract {

  @TempDir Path root;

  @Override
  ArtifactStore store() {
    return new LocalDirectoryArtifactStore(root);
  }

  @Override
  byte[] readBack(ArtifactStore store, String key) throws Exception {
    return Files.readAllBytes(root.resolve(key));
  }

  @Override
  int largeSize() {
    return 3 * 1024 * 1024;
  }

  @Test
  void objects_are_located_by_file_uri_and_no_staging_file_is_left() throws Exception {
    ArtifactStore store = store();
    store.put(KEY, Artifacts.content(KEY, Artifacts.random(10, 1)));
    assertThatThrownBy(
            () ->
                store.put(
                    KEY,
                    Artifacts.content(
                        KEY, Artifacts.failingAfter(new byte[10], 5), 10, "0".repeat(64))))
        .isInstanceOf(ArtifactStoreException.class);

    assertThat(store.locate(KEY)).isEqualTo(root.resolve(KEY).toUri().toString());
    assertThat(Path.of(URI.create(store.locate(KEY)))).exists();
    try (var staged = Files.list(root.resolve(".staging"))) {
      assertThat(staged).isEmpty();
    }
  }

  @Test
  void a_damaged_file_is_not_held() throws Exception {
    ArtifactStore store = store();
    byte[] bytes = Artifacts.random(100, 7);
    store.put(KEY, Artifacts.content(KEY, bytes));
    bytes[0] ^= 1;
    Files.write(root.resolve(KEY), bytes);

    assertThat(store.holds(KEY, 100, Artifacts.sha256(Artifacts.random(100, 7)))).isFalse();
  }

  @Test
  void keys_are_deterministic_and_cannot_escape_the_store() {
    assertThat(ArtifactKeys.of("op-1", "gen_1", 2, "image/png; charset=binary"))
        .isEqualTo("generations/op-1/gen_1/2.png");
    assertThat(ArtifactKeys.of("../../etc", "..", 0, null))
        .isEqualTo("generations/%2E%2E%2F%2E%2E%2Fetc/%2E%2E/0.bin");
    ArtifactStore store = store();
    assertThatThrownBy(() -> store.locate("../outside"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("escapes the store");
  }

  @Test
  void an_unwritable_directory_fails_its_check() throws Exception {
    ArtifactStore store = store();
    Files.delete(root.resolve(".staging"));

    assertThatThrownBy(store::check)
        .isInstanceOf(ArtifactStoreException.class)
        .hasMessage(
            "the directory " + root.toAbsolutePath().normalize() + " is missing or not writable");
  }
}
