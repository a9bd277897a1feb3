package com.genace.activities.delivery;

import static com.genace.activities.delivery.support.Artifacts.content;
import static com.genace.activities.delivery.support.Artifacts.failingAfter;
import static com.genace.activities.delivery.support.Artifacts.random;
import static com.genace.activities.delivery.support.Artifacts.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

/**
 * What every artifact store promises, run against each implementation. {@link #largeSize()} is
 * large enough to take a store's streaming path (several parts, for S3).
 */
abstract class ArtifactStoreContract {

  static final String KEY = ArtifactKeys.of("op-1", "gen_1", 0, "image/png");

  /** A store over fresh, empty storage. */
  abstract ArtifactStore store();

  /** The bytes stored under {@code key}, read back by other means than the store. */
  abstract byte[] readBack(ArtifactStore store, String key) throws Exception;

  abstract int largeSize();

  @Test
  void a_stored_object_is_held_only_with_its_exact_size_and_digest() throws Exception {
    ArtifactStore store = store();
    byte[] bytes = random(1000, 1);
    String sha = sha256(bytes);

    assertThat(store.holds(KEY, bytes.length, sha)).isFalse();
    store.put(KEY, content(KEY, bytes));

    assertThat(store.holds(KEY, bytes.length, sha)).isTrue();
    assertThat(store.holds(KEY, bytes.length + 1, sha)).isFalse();
    assertThat(store.holds(KEY, bytes.length, "0".repeat(64))).isFalse();
    assertThat(readBack(store, KEY)).isEqualTo(bytes);
  }

  @Test
  void a_large_artifact_streams_through_intact() throws Exception {
    ArtifactStore store = store();
    byte[] bytes = random(largeSize(), 2);

    store.put(KEY, content(KEY, bytes));

    assertThat(store.holds(KEY, bytes.length, sha256(bytes))).isTrue();
    assertThat(sha256(readBack(store, KEY))).isEqualTo(sha256(bytes));
  }

  @Test
  void an_empty_artifact_is_stored() throws Exception {
    ArtifactStore store = store();

    store.put(KEY, content(KEY, new byte[0]));

    assertThat(store.holds(KEY, 0, sha256(new byte[0]))).isTrue();
  }

  @Test
  void bytes_with_another_digest_are_refused_and_the_previous_object_stays() throws Exception {
    for (int size : new int[] {1000, largeSize()}) {
      ArtifactStore store = store();
      byte[] previous = random(500, 3);
      store.put(KEY, content(KEY, previous));
      byte[] bytes = random(size, 4);

      assertThatThrownBy(
              () ->
                  store.put(
                      KEY,
                      content(KEY, new ByteArrayInputStream(bytes), bytes.length, "0".repeat(64))))
          .isInstanceOf(ArtifactStoreException.class)
          .hasRootCauseInstanceOf(ArtifactMismatchException.class)
          .hasMessageContaining("expected " + size + " bytes with sha256 " + "0".repeat(64));

      assertThat(store.holds(KEY, previous.length, sha256(previous))).isTrue();
      assertThat(readBack(store, KEY)).isEqualTo(previous);
    }
  }

  @Test
  void fewer_or_more_bytes_than_announced_are_refused() {
    ArtifactStore store = store();
    byte[] bytes = random(largeSize(), 5);
    String sha = sha256(bytes);

    assertThatThrownBy(
            () ->
                store.put(
                    KEY, content(KEY, new ByteArrayInputStream(bytes), bytes.length + 10, sha)))
        .hasRootCauseInstanceOf(ArtifactMismatchException.class);
    assertThatThrownBy(
            () ->
                store.put(
                    KEY, content(KEY, new ByteArrayInputStream(bytes), bytes.length - 10, sha)))
        .hasRootCauseInstanceOf(ArtifactMismatchException.class)
        .hasMessageContaining("more than the " + (bytes.length - 10) + " bytes");

    assertThat(store.holds(KEY, bytes.length, sha)).isFalse();
  }

  @Test
  void an_upload_interrupted_midway_leaves_nothing_and_a_retry_stores_the_whole() throws Exception {
    ArtifactStore store = store();
    byte[] bytes = random(largeSize(), 6);
    String sha = sha256(bytes);

    assertThatThrownBy(
            () ->
                store.put(
                    KEY,
                    content(KEY, failingAfter(bytes, bytes.length * 2 / 3), bytes.length, sha)))
        .isInstanceOf(ArtifactStoreException.class)
        .hasMessageContaining("connection reset by peer");
    assertThat(store.holds(KEY, bytes.length, sha)).isFalse();

    store.put(KEY, content(KEY, bytes));

    assertThat(store.holds(KEY, bytes.length, sha)).isTrue();
    assertThat(readBack(store, KEY)).isEqualTo(bytes);
  }

  @Test
  void a_usable_store_passes_its_check() {
    assertThatCode(() -> store().check()).doesNotThrowAnyException();
  }
}
