package com.genace.ops.dev;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One file downloaded to disk and checked against the SHA-256 its index published, with a progress
 * line. Every wait has a deadline: the JDK client's request timeout ends with the response headers,
 * so the body is watched here, for a stall (no byte for {@link #STALL}) and as a whole ({@link
 * #DEADLINE}); either cancels the exchange.
 */
final class VerifiedDownload {

  static final Duration HEADERS = Duration.ofSeconds(30);
  static final Duration STALL = Duration.ofSeconds(60);
  static final Duration DEADLINE = Duration.ofMinutes(20);

  private static final Duration CHECK_EVERY = Duration.ofMillis(500);

  private VerifiedDownload() {}

  /**
   * Writes the file at {@code url} to {@code target}.
   *
   * @param expectedSize the size the index published, or -1: more bytes than that are refused
   * @throws IOException when it cannot be downloaded, or its SHA-256 differs (then {@code target}
   *     holds what arrived; the caller deletes it)
   */
  static void fetch(
      HttpClient http,
      URI url,
      Path target,
      String expectedSha256,
      long expectedSize,
      PrintWriter progress)
      throws IOException {
    Sink sink = new Sink(target, expectedSize, progress);
    HttpRequest request = HttpRequest.newBuilder(url).timeout(HEADERS).GET().build();
    CompletableFuture<HttpResponse<String>> exchange =
        http.sendAsync(
            request,
            info ->
                info.statusCode() == 200
                    ? HttpResponse.BodySubscribers.fromSubscriber(sink, Sink::sha256)
                    : HttpResponse.BodySubscribers.replacing(null));
    HttpResponse<String> response = await(exchange, sink, url);
    if (sink.failure != null) {
      throw new IOException("the download from " + url + " failed: " + sink.failure.getMessage());
    }
    if (response.statusCode() != 200) {
      throw new IOException(url + " answered HTTP " + response.statusCode());
    }
    if (expectedSize >= 0 && sink.received != expectedSize) {
      throw new IOException(
          "the download ended after " + sink.received + " of " + expectedSize + " bytes");
    }
    if (!response.body().equalsIgnoreCase(expectedSha256)) {
      throw new ChecksumMismatchException(
          "its SHA-256 is " + response.body() + ", the index publishes " + expectedSha256);
    }
  }

  private static HttpResponse<String> await(
      CompletableFuture<HttpResponse<String>> exchange, Sink sink, URI url) throws IOException {
    long started = System.nanoTime();
    try {
      while (true) {
        try {
          return exchange.get(CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException waiting) {
          if (sink.failure != null) {
            exchange.cancel(true);
            return null;
          }
          long now = System.nanoTime();
          String late = null;
          if (now - started > DEADLINE.toNanos()) {
            late = "not complete within " + DEADLINE.toMinutes() + " minutes";
          } else if (sink.lastByteAt != 0 && now - sink.lastByteAt > STALL.toNanos()) {
            late = "no byte for " + STALL.toSeconds() + " s";
          }
          if (late != null) {
            exchange.cancel(true);
            throw new IOException("the download from " + url + " timed out: " + late);
          }
        }
      }
    } catch (InterruptedException e) {
      exchange.cancel(true);
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while downloading " + url, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw new IOException(
            "the download from " + url + " failed: " + io.getClass().getSimpleName() + message(io),
            io);
      }
      throw new IOException("the download from " + url + " failed: " + cause, cause);
    } finally {
      sink.closeQuietly();
    }
  }

  private static String message(Throwable e) {
    return e.getMessage() == null ? "" : " (" + e.getMessage() + ")";
  }

  /** The downloaded bytes differ from the ones the index published. */
  static final class ChecksumMismatchException extends IOException {
    ChecksumMismatchException(String message) {
      super(message);
    }
  }

  /** The server sends more than the index listed. */
  private static final class TooLarge extends IOException {
    TooLarge(long expectedSize) {
      super("the server sent more than the " + expectedSize + " bytes the index lists");
    }
  }

  /** Writes the body to the file as it arrives, one buffer list at a time, hashing it. */
  private static final class Sink implements Flow.Subscriber<List<ByteBuffer>> {

    private final Path target;
    private final long expectedSize;
    private final PrintWriter progress;
    private final MessageDigest digest;
    private FileChannel channel;
    private Flow.Subscription subscription;
    private long received;
    private int shownPercent;
    private volatile long lastByteAt;
    private volatile IOException failure;

    Sink(Path target, long expectedSize, PrintWriter progress) {
      this.target = target;
      this.expectedSize = expectedSize;
      this.progress = progress;
      try {
        this.digest = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every JDK has SHA-256", e);
      }
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      lastByteAt = System.nanoTime();
      try {
        channel =
            FileChannel.open(
                target,
                StandardOpenOption.WRITE,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING);
      } catch (IOException e) {
        failure = new IOException("could not write " + target + message(e), e);
        subscription.cancel();
        return;
      }
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      lastByteAt = System.nanoTime();
      try {
        for (ByteBuffer buffer : buffers) {
          received += buffer.remaining();
          if (expectedSize >= 0 && received > expectedSize) {
            throw new TooLarge(expectedSize);
          }
          digest.update(buffer.duplicate());
          while (buffer.hasRemaining()) {
            channel.write(buffer);
          }
        }
      } catch (IOException e) {
        failure =
            e instanceof TooLarge
                ? e
                : new IOException("could not write " + target + message(e), e);
        subscription.cancel();
        return;
      }
      showProgress();
      subscription.request(1);
    }

    @Override
    public void onError(Throwable throwable) {
      closeQuietly();
    }

    @Override
    public void onComplete() {
      closeQuietly();
    }

    /** The finisher, after {@link #onComplete}: the hex SHA-256 of what arrived. */
    String sha256() {
      return HexFormat.of().formatHex(digest.digest());
    }

    private void showProgress() {
      if (expectedSize <= 0) {
        return;
      }
      int percent = (int) (received * 100 / expectedSize);
      if (percent >= shownPercent + 10) {
        shownPercent = percent - percent % 10;
        progress.print(" " + shownPercent + "%");
        progress.flush();
      }
    }

    void closeQuietly() {
      FileChannel open = channel;
      if (open != null) {
        try {
          open.close();
        } catch (IOException e) {
          // what was written is checked by its hash, or deleted
        }
      }
    }
  }
}
