package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.API_KEY;
import static com.genace.activities.genace.support.ClientTestSupport.clientFor;
import static com.genace.activities.genace.support.ClientTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.genace.support.CannedServer;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How each way a create can end is classified, against the simulator over loopback. */
class CreateOutcomeTest {

  private GenaceSimulator simulator;
  private HttpGenaceClient client;

  @BeforeEach
  void start() {
    simulator = GenaceSimulator.builder().apiKey(API_KEY).seed(7).start();
    client = clientFor(simulator.baseUrl());
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  @Test
  void an_accepted_create_returns_the_remote_job_id_and_creates_exactly_one_job() {
    CreateOutcome outcome = client.create(request("op-accepted"));

    assertThat(outcome).isInstanceOf(CreateOutcome.Accepted.class);
    CreateOutcome.Accepted accepted = (CreateOutcome.Accepted) outcome;
    assertThat(accepted.remoteJobId()).startsWith("gen_");
    assertThat(accepted.status()).isEqualTo("queued");
    assertThat(simulator.jobsForOperation("op-accepted")).containsExactly(accepted.remoteJobId());
    assertThat(simulator.stats().postsFor("op-accepted")).isEqualTo(1);
  }

  @Test
  void a_wrong_key_is_refused_for_the_account_with_401_counted_but_creates_nothing() {
    HttpGenaceClient wrongKey = clientFor(simulator.baseUrl(), "sk-wrong", Duration.ofSeconds(5));

    CreateOutcome outcome = wrongKey.create(request("op-wrong-key"));

    assertThat(outcome)
        .isEqualTo(
            new CreateOutcome.AccountRefused(
                401, AccountProblem.AUTHENTICATION, "HTTP 401: missing or invalid API key"));
    assertThat(simulator.stats().postsFor("op-wrong-key")).isEqualTo(1);
    assertThat(simulator.jobsForOperation("op-wrong-key")).isEmpty();
  }

  @Test
  void a_422_is_refused_with_the_servers_message() {
    try (CannedServer server =
        CannedServer.answering(422, "{\"error\":{\"message\":\"unknown model 'x'\"}}")) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-422"));

      assertThat(outcome).isEqualTo(new CreateOutcome.Refused(422, "HTTP 422: unknown model 'x'"));
    }
  }

  @Test
  void a_refusal_reason_is_cut_to_about_two_hundred_characters() {
    String longMessage = "x".repeat(5000);
    try (CannedServer server =
        CannedServer.answering(402, "{\"message\":\"" + longMessage + "\"}")) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-402"));

      assertThat(((CreateOutcome.AccountRefused) outcome).reason()).hasSizeLessThanOrEqualTo(203);
    }
  }

  @Test
  void a_429_is_rate_limited_with_the_retry_after_and_creates_nothing() {
    simulator.setFaults(Faults.DEFAULT.withRate429(1.0));

    CreateOutcome outcome = client.create(request("op-429"));

    assertThat(outcome).isEqualTo(new CreateOutcome.RateLimited(Duration.ofSeconds(1)));
    assertThat(simulator.jobsForOperation("op-429")).isEmpty();
  }

  @Test
  void a_503_leaves_the_outcome_unknown() {
    simulator.setFaults(Faults.DEFAULT.withRate5xx(1.0));

    CreateOutcome outcome = client.create(request("op-503"));

    assertThat(outcome)
        .isEqualTo(new CreateOutcome.Unknown("HTTP 503: simulated outage", OptionalInt.of(503)));
  }

  @Test
  void lost_post_response_creates_the_job_but_the_client_sees_unknown_and_does_not_retry() {
    simulator.setFaults(Faults.DEFAULT.withLosePostResponseNext(1));

    CreateOutcome outcome = client.create(request("op-lost"));

    assertThat(outcome).isInstanceOf(CreateOutcome.Unknown.class);
    assertThat(((CreateOutcome.Unknown) outcome).reason()).startsWith("connection failed after");
    assertThat(((CreateOutcome.Unknown) outcome).httpStatus()).as("no answer").isEmpty();
    assertThat(simulator.jobsForOperation("op-lost")).hasSize(1);
    assertThat(simulator.stats().postsFor("op-lost")).isEqualTo(1);
    assertThat(simulator.stats().postsTotal()).isEqualTo(1);
    assertThat(simulator.stats().responsesLost()).isEqualTo(1);
  }

  @Test
  void a_lost_response_on_a_reused_keep_alive_connection_is_not_retried_either() {
    // Warm the pool so that the next POST travels on a reused connection, where the JDK would
    // retry an idempotent request after the connection dies.
    assertThat(client.listModels()).isNotEmpty();
    simulator.setFaults(Faults.DEFAULT.withLosePostResponseNext(1));

    CreateOutcome outcome = client.create(request("op-lost-reused"));

    assertThat(outcome).isInstanceOf(CreateOutcome.Unknown.class);
    assertThat(simulator.stats().postsFor("op-lost-reused")).isEqualTo(1);
    assertThat(simulator.jobsForOperation("op-lost-reused")).hasSize(1);
  }

  @Test
  void only_the_next_n_responses_are_lost() {
    simulator.setFaults(Faults.DEFAULT.withLosePostResponseNext(1));

    assertThat(client.create(request("op-first"))).isInstanceOf(CreateOutcome.Unknown.class);
    assertThat(client.create(request("op-second"))).isInstanceOf(CreateOutcome.Accepted.class);
    assertThat(simulator.faults().losePostResponseNext()).isZero();
  }

  @Test
  void a_port_with_nothing_listening_means_not_sent() throws Exception {
    int freePort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      freePort = socket.getLocalPort();
    }

    CreateOutcome outcome =
        clientFor(URI.create("http://127.0.0.1:" + freePort)).create(request("op-nobody"));

    assertThat(outcome).isInstanceOf(CreateOutcome.NotSent.class);
  }

  @Test
  void an_unresolvable_host_means_not_sent() {
    CreateOutcome outcome =
        clientFor(URI.create("http://genace.invalid")).create(request("op-no-host"));

    assertThat(outcome)
        .isEqualTo(new CreateOutcome.NotSent("host genace.invalid could not be resolved"));
  }

  @Test
  void a_read_timeout_after_sending_is_unknown_and_the_job_appears_anyway() {
    simulator.setFaults(Faults.DEFAULT.withLatencyMs(3_000));
    HttpGenaceClient impatient = clientFor(simulator.baseUrl(), API_KEY, Duration.ofMillis(300));

    CreateOutcome outcome = impatient.create(request("op-slow"));

    assertThat(outcome).isInstanceOf(CreateOutcome.Unknown.class);
    assertThat(((CreateOutcome.Unknown) outcome).reason()).startsWith("no response within PT0.3S");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> simulator.jobsForOperation("op-slow").size() == 1);
    assertThat(simulator.stats().postsFor("op-slow")).isEqualTo(1);
  }

  @Test
  void a_success_status_with_a_body_that_is_not_json_is_unknown() {
    try (CannedServer server = CannedServer.answering(201, "<html>created</html>")) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-garbage"));

      assertThat(outcome).isInstanceOf(CreateOutcome.Unknown.class);
      assertThat(((CreateOutcome.Unknown) outcome).reason()).contains("a job may exist");
      assertThat(((CreateOutcome.Unknown) outcome).httpStatus()).hasValue(201);
    }
  }

  @Test
  void a_success_status_without_an_id_is_unknown() {
    try (CannedServer server =
        CannedServer.answering(200, "{\"status\":\"queued\",\"id\":\" \"}")) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-no-id"));

      assertThat(outcome).isInstanceOf(CreateOutcome.Unknown.class);
    }
  }

  @Test
  void an_unexpected_status_is_unknown() {
    try (CannedServer server = CannedServer.answering(409, "")) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-409"));

      assertThat(outcome).isEqualTo(new CreateOutcome.Unknown("HTTP 409", OptionalInt.of(409)));
    }
  }

  @Test
  void the_request_carries_the_model_input_operation_id_and_bearer_key() {
    try (CannedServer server = CannedServer.answering(201, "{\"id\":\"gen_1\"}")) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-shape"));

      assertThat(outcome).isEqualTo(new CreateOutcome.Accepted("gen_1", null));
      assertThat(server.received())
          .singleElement()
          .isEqualTo(
              new CannedServer.Received(
                  "POST",
                  "/v1/generations",
                  "Bearer " + API_KEY,
                  "{\"model\":\"image-v1\",\"input\":{\"prompt\":\"a lighthouse at dusk\"},"
                      + "\"metadata\":{\"operation_id\":\"op-shape\"}}"));
    }
  }
}
