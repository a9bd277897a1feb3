package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ArtifactLocationTest {

  @Test
  void without_settings_artifacts_go_to_a_local_directory() {
    ArtifactLocation location = ArtifactLocation.fromEnvironment(Map.of());

    assertThat(location.isS3()).isFalse();
    assertThat(location.directory()).isEqualTo(Path.of("artifacts").toAbsolutePath());
    assertThat(location.variable()).isEqualTo("GENACE_ARTIFACT_DIR");
  }

  @Test
  void a_directory_and_a_file_url_are_the_same_thing() {
    ArtifactLocation dir =
        ArtifactLocation.fromEnvironment(Map.of("GENACE_ARTIFACT_DIR", "/srv/genace/../out"));
    ArtifactLocation url =
        ArtifactLocation.fromEnvironment(Map.of("GENACE_ARTIFACT_URL", "file:///srv/out/"));

    assertThat(dir.directory()).isEqualTo(Path.of("/srv/out"));
    assertThat(url.directory()).isEqualTo(Path.of("/srv/out"));
    assertThat(url.toString()).isEqualTo("GENACE_ARTIFACT_URL=file:///srv/out");
  }

  @Test
  void an_s3_url_names_the_bucket_and_a_prefix_without_slashes() {
    ArtifactLocation location =
        ArtifactLocation.fromEnvironment(
            Map.of("GENACE_ARTIFACT_URL", "s3://genace-artifacts/prod/renders/"));
    ArtifactLocation bare =
        ArtifactLocation.fromEnvironment(Map.of("GENACE_ARTIFACT_URL", "s3://genace-artifacts"));

    assertThat(location.isS3()).isTrue();
    assertThat(location.bucket()).isEqualTo("genace-artifacts");
    assertThat(location.prefix()).isEqualTo("prod/renders");
    assertThat(bare.prefix()).isEmpty();
  }

  @Test
  void both_variables_at_once_are_refused() {
    assertThatThrownBy(
            () ->
                ArtifactLocation.fromEnvironment(
                    Map.of("GENACE_ARTIFACT_URL", "s3://b-1/x", "GENACE_ARTIFACT_DIR", "/tmp/a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("set GENACE_ARTIFACT_URL or GENACE_ARTIFACT_DIR, not both");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"http://bucket/x", "/tmp/artifacts", "file://host/x", "file:relative", "s3:x"})
  void a_url_of_another_kind_is_refused_naming_the_variable(String url) {
    assertThatThrownBy(() -> ArtifactLocation.fromEnvironment(Map.of("GENACE_ARTIFACT_URL", url)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("GENACE_ARTIFACT_URL ");
  }

  @Test
  void an_invalid_bucket_name_is_refused() {
    assertThatThrownBy(
            () ->
                ArtifactLocation.fromEnvironment(Map.of("GENACE_ARTIFACT_URL", "s3://My_Bucket/x")))
        .hasMessage(
            "GENACE_ARTIFACT_URL names no valid bucket (s3://bucket/prefix, bucket in lower case)");
  }

  @Test
  void a_malformed_endpoint_is_refused_naming_the_variable() {
    ArtifactLocation location =
        ArtifactLocation.fromEnvironment(Map.of("GENACE_ARTIFACT_URL", "s3://bucket-1/x"));

    assertThatThrownBy(
            () -> ArtifactStores.open(location, Map.of("AWS_ENDPOINT_URL", "minio.local:9000")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("AWS_ENDPOINT_URL must be an http(s) URL");
  }
}
