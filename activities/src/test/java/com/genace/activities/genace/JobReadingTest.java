package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.API_KEY;
import static com.genace.activities.genace.support.ClientTestSupport.clientFor;
import static com.genace.activities.genace.support.ClientTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.genace.support.CannedServer;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.model.RemoteStatus;
import java.io.InputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Observation and delivery against the simulator: snapshots, models and downloads. */
class JobReadingTest {

  private GenaceSimulator simulator;
  private HttpGenaceClient client;

  @BeforeEach
  void start() {
    simulator =
        GenaceSimulator.builder()
            .apiKey(API_KEY)
            .seed(11)
            .faults(Faults.DEFAULT.withJobDurationMs(200))
            .start();
    client = clientFor(simulator.baseUrl());
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  @Test
  void a_job_progresses_to_succeeded_with_outputs_whose_sha256_matches_the_downloaded_bytes()
      throws Exception {
    String id = accepted("op-render");

    JobSnapshot done = awaitTerminal(id);

    assertThat(done.status()).isEqualTo(RemoteStatus.SUCCEEDED);
    assertThat(done.errorMessage()).isNull();
    assertThat(done.outputs()).isNotEmpty().hasSizeLessThanOrEqualTo(2);
    for (int i = 0; i < done.outputs().size(); i++) {
      JobOutput output = done.outputs().get(i);
      byte[] bytes;
      try (InputStream body = client.openOutput(output)) {
        bytes = body.readAllBytes();
      }
      assertThat((long) bytes.length).isEqualTo(output.bytes());
      assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)))
          .isEqualTo(output.sha256());
    }
  }

  @Test
  void a_failed_job_reports_genaces_error_message() {
    simulator.setFaults(Faults.DEFAULT.withJobDurationMs(100).withFailRate(1.0));
    String id = accepted("op-doomed");

    JobSnapshot done = awaitTerminal(id);

    assertThat(done.status()).isEqualTo(RemoteStatus.FAILED);
    assertThat(done.outputs()).isEmpty();
    assertThat(done.errorMessage()).isEqualTo("the simulated render failed");
  }

  @Test
  void an_unknown_job_id_is_remote_job_not_found() {
    assertThatThrownBy(() -> client.get("gen_does_not_exist"))
        .isInstanceOf(RemoteJobNotFoundException.class)
        .hasMessage(
            "Genace GET /v1/generations/gen_does_not_exist failed: HTTP 404: unknown generation id");
  }

  @Test
  void an_id_with_reserved_characters_is_url_encoded_into_one_path_segment() {
    assertThatThrownBy(() -> client.get("a b/../c"))
        .isInstanceOf(RemoteJobNotFoundException.class)
        .hasMessageContaining("/v1/generations/a%20b%2F..%2Fc");
  }

  @Test
  void a_read_timeout_on_get_is_unavailable() {
    String id = accepted("op-slow-get");
    simulator.setFaults(Faults.DEFAULT.withLatencyMs(3_000));
    HttpGenaceClient impatient = clientFor(simulator.baseUrl(), API_KEY, Duration.ofMillis(300));

    assertThatThrownBy(() -> impatient.get(id))
        .isInstanceOf(GenaceUnavailableException.class)
        .hasMessageContaining("timed out");
  }

  @Test
  void a_503_on_get_is_unavailable_and_a_429_is_rate_limited() {
    String id = accepted("op-faulty-get");
    simulator.setFaults(Faults.DEFAULT.withRate5xx(1.0));
    assertThatThrownBy(() -> client.get(id)).isInstanceOf(GenaceUnavailableException.class);

    simulator.setFaults(Faults.DEFAULT.withRate429(1.0));
    assertThatThrownBy(() -> client.get(id))
        .isInstanceOfSatisfying(
            GenaceRateLimitedException.class,
            e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(1)));
  }

  @Test
  void a_wrong_key_on_get_is_an_authentication_error() {
    HttpGenaceClient wrongKey = clientFor(simulator.baseUrl(), "sk-wrong", Duration.ofSeconds(5));

    assertThatThrownBy(() -> wrongKey.get("gen_x"))
        .isInstanceOf(GenaceAuthenticationException.class);
    assertThatThrownBy(wrongKey::listModels).isInstanceOf(GenaceAuthenticationException.class);
  }

  @Test
  void models_are_listed_without_creating_anything() {
    assertThat(client.listModels()).contains("image-v1");
    assertThat(simulator.stats().jobsCreated()).isZero();
  }

  @Test
  void nothing_listening_on_get_is_unavailable() {
    simulator.close();

    assertThatThrownBy(() -> client.get("gen_x")).isInstanceOf(GenaceUnavailableException.class);
  }

  @Test
  void the_key_is_not_sent_to_an_output_url_on_another_origin() throws Exception {
    try (CannedServer cdn = CannedServer.answering(200, "")) {
      JobOutput empty =
          new JobOutput(
              cdn.baseUrl() + "/artifact?signature=secret",
              "application/octet-stream",
              0,
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

      try (InputStream body = client.openOutput(empty)) {
        assertThat(body.readAllBytes()).isEmpty();
      }

      assertThat(cdn.received())
          .singleElement()
          .extracting(CannedServer.Received::authorization)
          .isNull();
    }
  }

  @Test
  void a_missing_output_is_not_found_and_the_message_hides_the_query() {
    try (CannedServer cdn = CannedServer.answering(404, "")) {
      JobOutput gone =
          new JobOutput(
              cdn.baseUrl() + "/artifact?signature=secret", "image/png", 1, "a".repeat(64));

      assertThatThrownBy(() -> client.openOutput(gone))
          .isInstanceOf(RemoteJobNotFoundException.class)
          .hasMessageNotContaining("secret");
    }
  }

  private String accepted(String operationId) {
    CreateOutcome outcome = client.create(request(operationId));
    assertThat(outcome).isInstanceOf(CreateOutcome.Accepted.class);
    return ((CreateOutcome.Accepted) outcome).remoteJobId();
  }

  private JobSnapshot awaitTerminal(String id) {
    return await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> client.get(id), snapshot -> snapshot.status().isTerminal());
  }
}
