package com.genace.testkit.simulator;

import static com.genace.testkit.simulator.support.RawHttp.createBody;
import static com.genace.testkit.simulator.support.RawHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.testkit.simulator.support.RawHttp;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The simulated API, spoken to over plain HTTP. */
class GenaceSimulatorTest {

  private GenaceSimulator simulator;
  private RawHttp http;

  @BeforeEach
  void start() {
    simulator = GenaceSimulator.builder().seed(3).start();
    http = new RawHttp(simulator.baseUrl());
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  @Test
  void it_binds_an_ephemeral_port_on_loopback() {
    assertThat(simulator.port()).isPositive();
    assertThat(simulator.baseUrl()).hasToString("http://127.0.0.1:" + simulator.port());
  }

  @Test
  void a_create_answers_201_queued_and_the_job_goes_queued_running_then_succeeded() {
    simulator.setFaults(Faults.DEFAULT.withJobDurationMs(2_000));

    HttpResponse<String> created = http.post("/v1/generations", createBody("op-1"));

    assertThat(created.statusCode()).isEqualTo(201);
    String id = json(created).get("id").asText();
    assertThat(id).startsWith("gen_");
    assertThat(json(created).get("status").asText()).isEqualTo("queued");
    assertThat(status(id)).isEqualTo("queued");
    await().atMost(Duration.ofSeconds(5)).until(() -> status(id).equals("running"));
    await().atMost(Duration.ofSeconds(5)).until(() -> status(id).equals("succeeded"));
  }

  @Test
  void a_succeeded_job_serves_outputs_matching_its_snapshot() throws Exception {
    simulator.setFaults(Faults.DEFAULT.withJobDurationMs(0));
    String id = json(http.post("/v1/generations", createBody("op-out"))).get("id").asText();

    JsonNode snapshot = json(http.get("/v1/generations/" + id));

    assertThat(snapshot.get("status").asText()).isEqualTo("succeeded");
    assertThat(snapshot.get("metadata").get("operation_id").asText()).isEqualTo("op-out");
    assertThat(snapshot.get("outputs").size()).isBetween(1, 2);
    for (JsonNode output : snapshot.get("outputs")) {
      HttpResponse<byte[]> artifact = http.getBytes(output.get("url").asText());
      assertThat(artifact.statusCode()).isEqualTo(200);
      assertThat((long) artifact.body().length).isEqualTo(output.get("bytes").asLong());
      assertThat(sha256(artifact.body())).isEqualTo(output.get("sha256").asText());
      // Deterministic: a second download is identical.
      assertThat(http.getBytes(output.get("url").asText()).body()).isEqualTo(artifact.body());
    }
  }

  @Test
  void with_fail_rate_one_a_job_fails_with_render_failed() {
    simulator.setFaults(Faults.DEFAULT.withJobDurationMs(0).withFailRate(1.0));
    String id = json(http.post("/v1/generations", createBody("op-f"))).get("id").asText();

    JsonNode snapshot = json(http.get("/v1/generations/" + id));

    assertThat(snapshot.get("status").asText()).isEqualTo("failed");
    assertThat(snapshot.get("error").get("code").asText()).isEqualTo("render_failed");
    assertThat(snapshot.get("outputs")).isEmpty();
    assertThat(http.getBytes(simulator.baseUrl() + "/_sim/artifacts/" + id + "/0").statusCode())
        .isEqualTo(404);
  }

  @Test
  void an_unknown_id_is_404_with_an_error_message() {
    HttpResponse<String> response = http.get("/v1/generations/gen_nope");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).at("/error/message").asText()).isEqualTo("unknown generation id");
    assertThat(simulator.stats().getsTotal()).isEqualTo(1);
  }

  @Test
  void malformed_json_is_400_and_invalid_fields_are_422_counted_but_creating_nothing() {
    HttpResponse<String> notJson = http.post("/v1/generations", "{oops");
    HttpResponse<String> noInput =
        http.post(
            "/v1/generations",
            "{\"model\":\"image-v1\",\"metadata\":{\"operation_id\":\"op-bad\"}}");
    HttpResponse<String> blankModel =
        http.post("/v1/generations", createBody("op-bad").replace("image-v1", " "));

    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(noInput.statusCode()).isEqualTo(422);
    assertThat(json(noInput).at("/error/message").asText())
        .isEqualTo("field 'input' must be a JSON object");
    assertThat(json(blankModel).at("/error/message").asText())
        .isEqualTo("field 'model' must be a non-blank string");
    SimulatorStats stats = simulator.stats();
    assertThat(stats.postsTotal()).isEqualTo(3);
    assertThat(stats.postsFor("op-bad")).isEqualTo(2);
    assertThat(stats.jobsCreated()).isZero();
  }

  @Test
  void an_unknown_model_is_422_naming_the_known_ones_and_creates_nothing() {
    HttpResponse<String> unknown =
        http.post("/v1/generations", createBody("op-model").replace("image-v1", "genace-image-1"));

    assertThat(unknown.statusCode()).isEqualTo(422);
    assertThat(json(unknown).at("/error/message").asText())
        .isEqualTo("unknown model 'genace-image-1' (known: [image-v1, video-v1])");
    assertThat(simulator.stats().jobsCreated()).isZero();
    assertThat(http.post("/v1/generations", createBody("op-model").replace("image-v1", "video-v1")))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(201);
  }

  @Test
  void a_missing_or_wrong_bearer_token_is_401() {
    assertThat(http.post("/v1/generations", createBody("op-a"), null).statusCode()).isEqualTo(401);
    assertThat(http.post("/v1/generations", createBody("op-a"), "Bearer  ").statusCode())
        .isEqualTo(401);
    try (GenaceSimulator keyed = GenaceSimulator.builder().apiKey("sk-right").start()) {
      RawHttp keyedHttp = new RawHttp(keyed.baseUrl());
      assertThat(
              keyedHttp.post("/v1/generations", createBody("op-a"), "Bearer sk-wrong").statusCode())
          .isEqualTo(401);
      assertThat(
              keyedHttp.post("/v1/generations", createBody("op-a"), "Bearer sk-right").statusCode())
          .isEqualTo(201);
    }
    assertThat(simulator.jobsForOperation("op-a")).isEmpty();
  }

  @Test
  void models_are_listed_under_data() {
    JsonNode models = json(http.get("/v1/models"));

    assertThat(models.get("data").get(0).get("id").asText()).isEqualTo("image-v1");
  }

  @Test
  void rate_faults_answer_429_with_retry_after_or_503_and_create_nothing() {
    simulator.setFaults(Faults.DEFAULT.withRate429(1.0));
    HttpResponse<String> limited = http.post("/v1/generations", createBody("op-r"));
    simulator.setFaults(Faults.DEFAULT.withRate5xx(1.0));
    HttpResponse<String> down = http.post("/v1/generations", createBody("op-r"));

    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(simulator.jobsForOperation("op-r")).isEmpty();
    assertThat(simulator.stats().postsFor("op-r")).isEqualTo(2);
  }

  @Test
  void a_rate_limit_prefix_limits_only_the_creates_of_the_operations_it_names() {
    HttpResponse<String> patched =
        http.post("/_sim/faults", "{\"rate_429\":1.0,\"rate_429_prefix\":\"big-\"}");
    HttpResponse<String> big = http.post("/v1/generations", createBody("big-1"));
    HttpResponse<String> small = http.post("/v1/generations", createBody("small-1"));
    HttpResponse<String> models = http.get("/v1/models");
    HttpResponse<String> wrongType = http.post("/_sim/faults", "{\"rate_429_prefix\":1}");

    assertThat(patched.statusCode()).isEqualTo(200);
    assertThat(big.statusCode()).isEqualTo(429);
    assertThat(small.statusCode()).isEqualTo(201);
    assertThat(models.statusCode()).isEqualTo(200);
    assertThat(wrongType.statusCode()).isEqualTo(400);
    assertThat(wrongType.body()).contains("rate_429_prefix must be a string");
    assertThat(simulator.faults().rate429Prefix()).isEqualTo("big-");
  }

  @Test
  void a_lost_response_closes_the_connection_without_a_single_response_byte() throws Exception {
    simulator.setFaults(Faults.DEFAULT.withLosePostResponseNext(1));
    byte[] body = createBody("op-lost").getBytes(StandardCharsets.UTF_8);

    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), simulator.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /v1/generations HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer k\r\n"
                  + "Content-Type: application/json\r\nContent-Length: "
                  + body.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      InputStream in = socket.getInputStream();

      // End of stream (or a reset) with nothing before it: no status line, no headers.
      assertThat(readOrReset(in)).isEqualTo(-1);
    }
    assertThat(simulator.jobsForOperation("op-lost")).hasSize(1);
    assertThat(simulator.stats().responsesLost()).isEqualTo(1);
  }

  @Test
  void the_creates_due_to_lose_their_response_do_so_whatever_the_random_fault_rates() {
    simulator.setFaults(
        Faults.DEFAULT.withRate429(1.0).withRate5xx(1.0).withLosePostResponseNext(1));
    try {
      http.post("/v1/generations", createBody("op-scripted"));
    } catch (java.io.UncheckedIOException expected) {
      // The response was lost, as scripted, not answered 429 or 503.
    }

    HttpResponse<String> next = http.post("/v1/generations", createBody("op-after"));

    assertThat(simulator.jobsForOperation("op-scripted")).hasSize(1);
    assertThat(simulator.stats().responsesLost()).isEqualTo(1);
    assertThat(next.statusCode()).as("the rates apply again").isEqualTo(429);
    assertThat(simulator.jobsForOperation("op-after")).isEmpty();
  }

  @Test
  void the_jobs_endpoint_lists_an_operations_jobs_for_an_operator() {
    simulator.setFaults(Faults.DEFAULT.withLosePostResponseNext(1));
    assertThat(simulator.jobsForOperation("op-j")).isEmpty();
    try {
      http.post("/v1/generations", createBody("op-j"));
    } catch (java.io.UncheckedIOException expected) {
      // The response was lost, as configured.
    }

    JsonNode jobs = json(http.get("/_sim/jobs?operation_id=op-j")).get("jobs");

    assertThat(jobs).hasSize(1);
    assertThat(jobs.get(0).get("id").asText()).isEqualTo(simulator.jobsForOperation("op-j").get(0));
    assertThat(jobs.get(0).get("status").asText()).isEqualTo("queued");
    assertThat(json(http.get("/_sim/jobs?operation_id=other")).get("jobs")).isEmpty();
  }

  @Test
  void stats_count_posts_per_operation_so_duplicates_show() {
    http.post("/v1/generations", createBody("op-dup"));
    http.post("/v1/generations", createBody("op-dup"));
    http.post("/v1/generations", createBody("op-once"));
    http.get("/v1/generations/gen_x");

    JsonNode stats = json(http.get("/_sim/stats"));

    assertThat(stats.get("posts_total").asLong()).isEqualTo(3);
    assertThat(stats.at("/posts_by_operation/op-dup").asLong()).isEqualTo(2);
    assertThat(stats.at("/posts_by_operation/op-once").asLong()).isEqualTo(1);
    assertThat(stats.get("gets_total").asLong()).isEqualTo(1);
    assertThat(stats.get("jobs_created").asLong()).isEqualTo(3);
    assertThat(stats.get("responses_lost").asLong()).isZero();
    assertThat(simulator.stats().duplicatePosts()).isEqualTo(1);
  }

  @Test
  void reset_clears_jobs_stats_and_faults() {
    http.post("/v1/generations", createBody("op-gone"));
    simulator.setFaults(Faults.DEFAULT.withFailRate(0.5));

    assertThat(http.post("/_sim/reset", "").statusCode()).isEqualTo(204);

    assertThat(simulator.jobsForOperation("op-gone")).isEmpty();
    assertThat(simulator.stats().postsTotal()).isZero();
    assertThat(simulator.faults()).isEqualTo(Faults.DEFAULT);
  }

  private String status(String id) {
    return json(http.get("/v1/generations/" + id)).get("status").asText();
  }

  private static int readOrReset(InputStream in) {
    try {
      return in.read();
    } catch (java.net.SocketException reset) {
      return -1;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
