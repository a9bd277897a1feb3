package com.genace.activities.delivery;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the S3 artifact store waits for S3, so that an S3 that stops answering (or stops reading
 * an upload) fails the delivery attempt, which Temporal retries, instead of holding its thread.
 *
 * <ul>
 *   <li>{@link #socketTimeout}: the HTTP client's socket read timeout (no byte for this long fails
 *       the request) and its connect timeout; it cannot see a stalled upload, where the client
 *       writes and S3 does not read.
 *   <li>{@link #requestTimeout}: the SDK's {@code apiCallAttemptTimeout}, one request attempt from
 *       start to end, body included (a whole object or one part, at most {@value
 *       S3ArtifactStore#DEFAULT_PART_SIZE} bytes by default); it aborts the request, which closes
 *       its connection, and so also ends a stalled upload.
 *   <li>{@link #callTimeout()}: the SDK's {@code apiCallTimeout}, a call with its retries: three
 *       request timeouts (the SDK's standard retries make at most three attempts).
 * </ul>
 *
 * @param socketTimeout positive, at most {@link #MAX}
 * @param requestTimeout positive, at most {@link #MAX}
 */
public record S3Timeouts(Duration socketTimeout, Duration requestTimeout) {

  /** The longest timeout accepted: an hour. */
  public static final Duration MAX = Duration.ofHours(1);

  /** As the SDK's own default socket timeout. */
  public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(30);

  /** Eight MiB (a part) at about 70 KiB/s. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMinutes(2);

  public static final S3Timeouts DEFAULT =
      new S3Timeouts(DEFAULT_SOCKET_TIMEOUT, DEFAULT_REQUEST_TIMEOUT);

  /** A connection that takes longer to set up than this is not coming. */
  static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  public S3Timeouts {
    require("socketTimeout", socketTimeout);
    require("requestTimeout", requestTimeout);
  }

  /** A call with its retries. */
  public Duration callTimeout() {
    return requestTimeout.multipliedBy(3);
  }

  /** Establishing a connection: the socket timeout, at most ten seconds. */
  Duration connectTimeout() {
    return socketTimeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? socketTimeout : MAX_CONNECT_TIMEOUT;
  }

  private static void require(String name, Duration timeout) {
    Objects.requireNonNull(timeout, name);
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive: " + timeout);
    }
    if (timeout.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(name + " must be at most " + MAX + ": " + timeout);
    }
  }
}
