package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.delivery.support.Artifacts;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArtifactContentTest {

  @Test
  void progress_is_reported_every_step_of_bytes_read() throws Exception {
    byte[] bytes = Artifacts.random((int) (2.5 * ArtifactContent.PROGRESS_STEP), 1);
    List<Long> reported = new ArrayList<>();
    try (ArtifactContent content =
        new ArtifactContent(
            new ByteArrayInputStream(bytes),
            "k",
            bytes.length,
            Artifacts.sha256(bytes),
            "image/png",
            reported::add)) {
      content.stream().transferTo(OutputStream.nullOutputStream());
    }

    assertThat(reported).hasSize(2);
    assertThat(reported.get(0)).isGreaterThanOrEqualTo(ArtifactContent.PROGRESS_STEP);
    assertThat(reported.get(1)).isGreaterThanOrEqualTo(2 * ArtifactContent.PROGRESS_STEP);
  }

  @Test
  void skipped_bytes_are_still_checked() {
    byte[] bytes = Artifacts.random(10_000, 2);
    ArtifactContent content =
        new ArtifactContent(
            new ByteArrayInputStream(bytes), "k", bytes.length, "0".repeat(64), "x", null);
    InputStream stream = content.stream();

    assertThatThrownBy(
            () -> {
              while (stream.skip(4096) > 0) {
                // skip to the end
              }
              stream.read();
            })
        .isInstanceOf(ArtifactMismatchException.class)
        .hasMessage(
            "k: expected 10000 bytes with sha256 "
                + "0".repeat(64)
                + ", got 10000 bytes with sha256 "
                + Artifacts.sha256(bytes));
  }

  @Test
  void the_end_is_required_only_after_every_announced_byte() throws Exception {
    byte[] bytes = Artifacts.random(100, 3);
    ArtifactContent content = Artifacts.content("k", bytes);

    assertThatThrownBy(content::requireEnd).isInstanceOf(IllegalStateException.class);
    content.stream().readNBytes(99);
    content.requireEnd();
  }
}
