package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.API_KEY;
import static com.genace.activities.genace.support.ClientTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.genace.activities.delivery.ArtifactContent;
import com.genace.activities.delivery.ArtifactStoreException;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.genace.support.StallingServer;
import com.genace.activities.genace.support.StallingServer.Body;
import com.genace.activities.testing.OwnThread;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every network wait ends: a peer that sends the response headers and then stalls the body, or
 * trickles it a byte a second, fails the call once its deadline passes, frees the calling thread
 * and has its connection closed. Deadlines are short (1–3 s); nothing here asserts a duration: a
 * call that hung would fail the test by not returning within its generous join.
 */
class HttpGenaceClientDeadlineTest {

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(1);
  // A byte a second trickles well within the stall deadline, so only the overall one can end it.
  private static final Duration STALL = Duration.ofSeconds(3);
  private static final Duration DOWNLOAD_DEADLINE = Duration.ofSeconds(6);

  /** Far beyond every deadline: a call still running then is hung. */
  private static final long HUNG_AFTER_SECONDS = 30;

  private static final String SHA256 = "0".repeat(64);

  private static HttpGenaceClient clientFor(URI baseUrl) {
    return new HttpGenaceClient(
        GenaceClientConfig.of(baseUrl, API_KEY)
            .withTimeouts(Duration.ofSeconds(2), READ_TIMEOUT)
            .withDownloadTimeouts(STALL, DOWNLOAD_DEADLINE));
  }

  @ParameterizedTest
  @EnumSource(Body.class)
  void a_post_whose_body_stalls_after_sending_is_an_unknown_outcome_never_not_sent(Body body)
      throws Exception {
    try (StallingServer server = StallingServer.json(body)) {
      CreateOutcome outcome =
          onItsOwnThread(() -> clientFor(server.baseUrl()).create(request("op")));

      assertThat(outcome).isInstanceOf(CreateOutcome.Unknown.class);
      assertThat(((CreateOutcome.Unknown) outcome).reason())
          .startsWith("no response within PT1S (headers and body)")
          .doesNotContain(API_KEY);
      assertThat(server.requestLines()).containsExactly("POST /v1/generations HTTP/1.1");
      assertThat(server.awaitClientGone(10)).as("connection closed by the client").isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(Body.class)
  void a_status_poll_whose_body_stalls_fails_retryably(Body body) throws Exception {
    try (StallingServer server = StallingServer.json(body)) {
      Throwable thrown =
          onItsOwnThread(() -> catchThrowable(() -> clientFor(server.baseUrl()).get("gen_1")));

      assertThat(thrown)
          .isInstanceOf(GenaceUnavailableException.class)
          .hasMessage("Genace GET /v1/generations/gen_1 timed out: no response within PT1S");
      assertThat(server.awaitClientGone(10)).as("connection closed by the client").isTrue();
    }
  }

  @Test
  void a_search_whose_body_stalls_fails_retryably() throws Exception {
    try (StallingServer server = StallingServer.json(Body.STALL)) {
      Throwable thrown =
          onItsOwnThread(() -> catchThrowable(() -> clientFor(server.baseUrl()).search("op-1")));

      assertThat(thrown)
          .isInstanceOf(GenaceUnavailableException.class)
          .hasMessage(
              "Genace GET /v1/generations?operation_id=... timed out: no response within PT1S");
      assertThat(server.requestLines())
          .containsExactly("GET /v1/generations?operation_id=op-1 HTTP/1.1");
      assertThat(server.awaitClientGone(10)).as("connection closed by the client").isTrue();
    }
  }

  @Test
  void a_models_list_whose_body_stalls_fails_retryably() throws Exception {
    try (StallingServer server = StallingServer.json(Body.STALL)) {
      Throwable thrown =
          onItsOwnThread(() -> catchThrowable(() -> clientFor(server.baseUrl()).listModels()));

      assertThat(thrown).isInstanceOf(GenaceUnavailableException.class);
      assertThat(server.awaitClientGone(10)).as("connection closed by the client").isTrue();
    }
  }

  @Test
  void a_download_whose_body_stalls_fails_when_no_byte_came_for_the_stall_timeout()
      throws Exception {
    try (StallingServer server = StallingServer.artifact(Body.STALL)) {
      Throwable thrown = onItsOwnThread(() -> catchThrowable(() -> download(server)));

      assertThat(thrown)
          .isInstanceOf(HttpTimeoutException.class)
          .hasMessage("Genace GET " + server.baseUrl() + "/out/1.png timed out: no byte for PT3S");
      assertThat(server.awaitClientGone(10)).as("connection closed by the client").isTrue();
    }
  }

  @Test
  void a_download_that_trickles_fails_at_its_deadline() throws Exception {
    try (StallingServer server = StallingServer.artifact(Body.TRICKLE)) {
      Throwable thrown = onItsOwnThread(() -> catchThrowable(() -> download(server)));

      assertThat(thrown)
          .isInstanceOf(HttpTimeoutException.class)
          .hasMessage(
              "Genace GET " + server.baseUrl() + "/out/1.png timed out: not complete within PT6S");
      assertThat(server.awaitClientGone(10)).as("connection closed by the client").isTrue();
    }
  }

  @Test
  void a_stalled_download_into_the_store_fails_the_put_retryably_and_stores_nothing(
      @TempDir Path root) throws Exception {
    try (StallingServer server = StallingServer.artifact(Body.STALL)) {
      LocalDirectoryArtifactStore store = new LocalDirectoryArtifactStore(root);
      JobOutput output =
          new JobOutput(
              server.baseUrl() + "/out/1.png",
              "image/png",
              StallingServer.announcedBytes(),
              SHA256);
      HttpGenaceClient client = clientFor(server.baseUrl());

      Throwable thrown =
          onItsOwnThread(
              () ->
                  catchThrowable(
                      () -> {
                        try (ArtifactContent content =
                            new ArtifactContent(
                                client.openOutput(output),
                                "op/1.png",
                                output.bytes(),
                                output.sha256(),
                                output.contentType(),
                                null)) {
                          store.put("op/1.png", content);
                        }
                      }));

      // A store failure, retried by delivery; not a mismatch of the bytes Genace announced.
      assertThat(thrown)
          .isInstanceOf(ArtifactStoreException.class)
          .hasMessageContaining("timed out: no byte for PT3S")
          .hasRootCauseInstanceOf(java.io.IOException.class);
      assertThat(store.holds("op/1.png", output.bytes(), output.sha256())).isFalse();
      assertThat(Files.exists(root.resolve("op/1.png"))).isFalse();
      assertThat(server.awaitClientGone(10)).as("connection closed by the client").isTrue();
    }
  }

  private static byte[] download(StallingServer server) throws Exception {
    JobOutput output =
        new JobOutput(
            server.baseUrl() + "/out/1.png?X-Signature=secret",
            "image/png",
            StallingServer.announcedBytes(),
            SHA256);
    try (InputStream body = clientFor(server.baseUrl()).openOutput(output)) {
      return body.readAllBytes();
    }
  }

  /**
   * Runs the call on a thread of its own and waits for it to end: a call that never returned would
   * leave its thread parked in the client. Afterwards no thread at all is inside the client.
   */
  private static <T> T onItsOwnThread(Callable<T> call) throws Exception {
    try {
      return OwnThread.call("deadline-test-caller", Duration.ofSeconds(HUNG_AFTER_SECONDS), call);
    } finally {
      assertThat(threadsInTheClient()).isEmpty();
    }
  }

  /**
   * Threads with a frame of the client's classes: none once every call has returned. The download
   * watchdog's one shared thread is not a caller: it may be in the middle of a check (or of closing
   * the stream it just expired) when the threads are sampled.
   */
  private static java.util.List<String> threadsInTheClient() {
    return Thread.getAllStackTraces().entrySet().stream()
        .filter(entry -> !entry.getKey().getName().equals(OutputBody.WATCHDOG_THREAD))
        .filter(
            entry ->
                Arrays.stream(entry.getValue())
                    .anyMatch(
                        frame ->
                            isIn(frame, HttpGenaceClient.class) || isIn(frame, OutputBody.class)))
        .map(entry -> entry.getKey().getName())
        .toList();
  }

  private static boolean isIn(StackTraceElement frame, Class<?> type) {
    String name = frame.getClassName();
    return name.equals(type.getName()) || name.startsWith(type.getName() + "$");
  }
}
