package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.genace.activities.delivery.support.Artifacts;
import com.genace.activities.testing.OwnThread;
import com.genace.activities.testing.S3Server;
import com.genace.testkit.ThrottledLink;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3 that stops: an endpoint that accepts connections and then neither reads nor answers, and a
 * real S3 (S3Proxy) whose link stops carrying an upload's part. Every store call ends with a
 * retryable {@link ArtifactStoreException} caused by the {@link S3Timeouts} that name it, frees its
 * thread, and publishes no object. Nothing asserts a duration: a call that hung would not return
 * within the generous join.
 */
class StalledS3DeliveryTest {

  private static final long HUNG_AFTER_SECONDS = 60;
  private static final String KEY = "op-1/gen_1/0.png";

  private BlackHole s3;

  @BeforeEach
  void start() throws IOException {
    s3 = new BlackHole();
  }

  @AfterEach
  void stop() {
    s3.close();
  }

  @Test
  void an_s3_that_never_answers_fails_the_check_for_an_object_within_the_socket_timeout()
      throws Exception {
    try (ArtifactStore store = open(new S3Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2)))) {
      Throwable thrown = onItsOwnThread(() -> catchThrowable(() -> store.holds(KEY, 1, "0")));

      assertThat(thrown)
          .isInstanceOf(ArtifactStoreException.class)
          .hasMessageStartingWith("could not inspect s3://bucket/prefix/" + KEY);
    }
  }

  @Test
  void an_s3_that_stops_reading_a_part_fails_the_multipart_put_at_its_request_timeout()
      throws Exception {
    S3Server server = S3Server.get();
    URI endpoint = server.endpoint();
    // Larger than a part: the multipart path. Each connection's first MiB reaches S3 (the request
    // that starts the upload, and the start of part 1); then S3 reads no more.
    byte[] bytes = Artifacts.random(S3ArtifactStore.DEFAULT_PART_SIZE + 1, 1);
    try (S3Client admin = server.client();
        ThrottledLink link =
            ThrottledLink.stallingAfter(
                new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 1024 * 1024)) {
      String bucket = server.newBucket(admin);
      Map<String, String> env = new HashMap<>(server.environment());
      env.put("AWS_ENDPOINT_URL", "http://127.0.0.1:" + link.port());
      env.put(ArtifactLocation.URL_VARIABLE, "s3://" + bucket + "/prefix");
      AtomicInteger uploadsSeen = new AtomicInteger();
      // The socket timeout is long and sees no write anyway: only the request timeout can end it.
      try (ArtifactStore store =
              ArtifactStores.open(
                  ArtifactLocation.fromEnvironment(env),
                  env,
                  new S3Timeouts(Duration.ofMinutes(10), Duration.ofSeconds(2)));
          ArtifactContent content = Artifacts.content(KEY, bytes);
          Watcher watcher =
              new Watcher(() -> uploadsSeen.accumulateAndGet(uploads(admin, bucket), Math::max))) {
        Throwable thrown = onItsOwnThread(() -> catchThrowable(() -> store.put(KEY, content)));

        assertThat(thrown)
            .isInstanceOf(ArtifactStoreException.class)
            .hasMessageStartingWith("could not store s3://" + bucket + "/prefix/" + KEY);
        // Ended by the SDK's request timeout (or the call's, its retries included).
        assertThat(thrown.getCause())
            .isInstanceOfAny(ApiCallAttemptTimeoutException.class, ApiCallTimeoutException.class);
      }
      assertThat(uploadsSeen).as("multipart uploads under way while S3 stalled").hasValue(1);
      // No object: S3 shows none until an upload completes. (The store's abort is best effort: S3
      // may refuse it while the stalled part is still open on its side, as S3Proxy does here, and
      // a bucket lifecycle rule removes what is left; docs/artifact-storage.md.)
      assertThat(admin.listObjectsV2(b -> b.bucket(bucket)).contents())
          .extracting(S3Object::key)
          .noneMatch(key -> key.endsWith(KEY));
    }
  }

  private static int uploads(S3Client admin, String bucket) {
    return admin.listMultipartUploads(b -> b.bucket(bucket)).uploads().size();
  }

  /** Runs {@code look} every 50 ms on a thread of its own until closed. */
  private static final class Watcher implements AutoCloseable {
    private final Thread thread;

    Watcher(Runnable look) {
      thread =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  look.run();
                  try {
                    Thread.sleep(50);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "multipart-watcher");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      thread.interrupt();
      thread.join();
    }
  }

  @Test
  void the_timeouts_are_positive_and_at_most_an_hour() {
    assertThat(catchThrowable(() -> new S3Timeouts(Duration.ZERO, Duration.ofSeconds(1))))
        .hasMessage("socketTimeout must be positive: PT0S");
    assertThat(catchThrowable(() -> new S3Timeouts(Duration.ofSeconds(1), Duration.ofHours(2))))
        .hasMessage("requestTimeout must be at most PT1H: PT2H");
    assertThat(S3Timeouts.DEFAULT.callTimeout()).isEqualTo(Duration.ofMinutes(6));
  }

  private ArtifactStore open(S3Timeouts timeouts) {
    Map<String, String> env =
        Map.of(
            "AWS_ACCESS_KEY_ID",
            "test-access",
            "AWS_SECRET_ACCESS_KEY",
            "test-secret-value",
            "AWS_REGION",
            "us-east-1",
            "AWS_ENDPOINT_URL",
            "http://127.0.0.1:" + s3.port(),
            ArtifactLocation.URL_VARIABLE,
            "s3://bucket/prefix");
    return ArtifactStores.open(ArtifactLocation.fromEnvironment(env), env, timeouts);
  }

  private static <T> T onItsOwnThread(Callable<T> call) throws Exception {
    T result = OwnThread.call("stalled-s3-caller", Duration.ofSeconds(HUNG_AFTER_SECONDS), call);
    return result;
  }

  /** Accepts connections and then does nothing with them; a small receive window fills fast. */
  private static final class BlackHole implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> held = new CopyOnWriteArrayList<>();

    BlackHole() throws IOException {
      server = new ServerSocket();
      server.setReceiveBufferSize(4096);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
      Thread acceptor =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    held.add(server.accept());
                  } catch (IOException e) {
                    return;
                  }
                }
              },
              "s3-black-hole");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() {
      try {
        server.close();
      } catch (IOException e) {
        // closing anyway
      }
      for (Socket socket : held) {
        try {
          socket.close();
        } catch (IOException e) {
          // closing anyway
        }
      }
    }
  }
}
