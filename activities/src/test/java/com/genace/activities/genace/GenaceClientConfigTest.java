package com.genace.activities.genace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.genace.support.CannedServer;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GenaceClientConfigTest {

  private static final URI BASE = URI.create("https://api.genace.example");

  @Test
  void the_factory_uses_the_documented_defaults() {
    GenaceClientConfig config = GenaceClientConfig.of(BASE, "sk-1");

    assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.readTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.createPath()).isEqualTo("/v1/generations");
    assertThat(config.jobPathTemplate()).isEqualTo("/v1/generations/{id}");
    assertThat(config.modelsPath()).isEqualTo("/v1/models");
    assertThat(config.downloadStallTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.downloadDeadline()).isEqualTo(Duration.ofMinutes(30));
  }

  @Test
  void to_string_masks_the_key() {
    assertThat(GenaceClientConfig.of(BASE, "sk-very-secret").toString())
        .contains("apiKey=***")
        .doesNotContain("sk-very-secret");
  }

  @Test
  void a_blank_key_is_refused() {
    assertThatThrownBy(() -> GenaceClientConfig.of(BASE, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Genace API key must not be blank");
  }

  @Test
  void a_non_http_url_or_one_with_user_info_is_refused_without_echoing_it() {
    for (String url :
        new String[] {"ftp://genace.example", "genace.example", "https://u:pw@genace.example"}) {
      assertThatThrownBy(() -> GenaceClientConfig.of(URI.create(url), "sk-1"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Genace base URL must be an absolute http or https URL without user info, query or"
                  + " fragment");
    }
  }

  @Test
  void non_positive_timeouts_are_refused() {
    GenaceClientConfig config = GenaceClientConfig.of(BASE, "sk-1");

    assertThatThrownBy(() -> config.withTimeouts(Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessage("connectTimeout must be positive: PT0S");
    assertThatThrownBy(() -> config.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(-1)))
        .hasMessage("readTimeout must be positive: PT-1S");
  }

  @Test
  void download_timeouts_must_be_positive_and_at_most_a_day() {
    GenaceClientConfig config = GenaceClientConfig.of(BASE, "sk-1");

    assertThatThrownBy(() -> config.withDownloadTimeouts(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("downloadStallTimeout must be positive: PT0S");
    assertThatThrownBy(
            () -> config.withDownloadTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("downloadDeadline must be positive: PT-1S");
    assertThatThrownBy(() -> config.withDownloadTimeouts(Duration.ofSeconds(1), Duration.ofDays(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("downloadDeadline must be at most PT24H: PT48H");
    assertThatThrownBy(() -> config.withTimeouts(Duration.ofSeconds(1), Duration.ofHours(25)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("readTimeout must be at most PT24H: PT25H");

    GenaceClientConfig shorter =
        config.withDownloadTimeouts(Duration.ofSeconds(5), Duration.ofMinutes(2));
    assertThat(shorter.downloadStallTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(shorter.downloadDeadline()).isEqualTo(Duration.ofMinutes(2));
    assertThat(shorter.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2)))
        .as("the other timeouts keep them")
        .extracting(GenaceClientConfig::downloadStallTimeout)
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void a_job_path_template_without_the_id_placeholder_is_refused() {
    assertThatThrownBy(
            () ->
                new GenaceClientConfig(
                    BASE,
                    "sk-1",
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(1),
                    "/v1/generations",
                    "/v1/generations",
                    "/v1/models"))
        .hasMessage("jobPathTemplate must contain {id}: /v1/generations");
  }

  @Test
  void a_base_url_path_prefix_is_kept() {
    try (CannedServer server = CannedServer.answering(200, "{\"data\":[{\"id\":\"m\"}]}")) {
      URI prefixed = URI.create(server.baseUrl() + "/genace/");
      HttpGenaceClient client = new HttpGenaceClient(GenaceClientConfig.of(prefixed, "sk-1"));

      assertThat(client.listModels()).containsExactly("m");
      assertThat(server.received())
          .extracting(CannedServer.Received::path)
          .containsExactly("/genace/v1/models");
    }
  }

  @Test
  void the_client_refuses_to_run_when_the_jdk_could_resend_a_post_by_itself() {
    System.setProperty(HttpGenaceClient.ALL_METHOD_RETRY_PROPERTY, "true");
    try {
      assertThatThrownBy(() -> new HttpGenaceClient(GenaceClientConfig.of(BASE, "sk-1")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(HttpGenaceClient.ALL_METHOD_RETRY_PROPERTY);
    } finally {
      System.clearProperty(HttpGenaceClient.ALL_METHOD_RETRY_PROPERTY);
    }
  }
}
