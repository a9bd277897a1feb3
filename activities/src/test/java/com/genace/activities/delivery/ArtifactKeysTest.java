package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ArtifactKeysTest {

  @ParameterizedTest
  @CsvSource({
    "image/png, 0.png",
    "IMAGE/JPEG, 0.jpg",
    "video/mp4; codecs=avc1, 0.mp4",
    "video/webm, 0.webm",
    "audio/wav, 0.wav",
    "model/gltf-binary, 0.glb",
    "application/octet-stream, 0.bin",
    "'', 0.bin"
  })
  void the_extension_comes_from_the_content_type(String contentType, String file) {
    assertThat(ArtifactKeys.of("op", "gen", 0, contentType))
        .isEqualTo("generations/op/gen/" + file);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "a/b c | a%2Fb%20c",
        "order.1 | order%2E1",
        "ü*+ | %C3%BC%2A%2B",
        "op-1_A~ | op-1_A%7E"
      })
  void ids_are_percent_encoded_into_one_path_segment(String id, String segment) {
    assertThat(ArtifactKeys.of(id, "gen_1", 3, "image/png"))
        .isEqualTo("generations/" + segment + "/gen_1/3.png");
  }
}
