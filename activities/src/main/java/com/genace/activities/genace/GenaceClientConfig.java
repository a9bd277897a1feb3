package com.genace.activities.genace;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where Genace is and how long to wait for it. {@link #toString()} masks the API key.
 *
 * @param baseUrl absolute http(s) URL, without user info, query or fragment; a path prefix is kept
 * @param apiKey non-blank bearer token
 * @param connectTimeout positive; bounds establishing a connection
 * @param readTimeout positive, at most {@link #MAX_TIMEOUT}; bounds each JSON exchange (create,
 *     status, search, models) end to end, from sending the request to the last byte of the response
 *     body, and the wait for an output download's response headers. The JDK client's own request
 *     timeout stops at the headers, so a peer that sends them and then holds the connection would
 *     otherwise hang the call for good
 * @param downloadStallTimeout positive, at most {@link #MAX_TIMEOUT}; an output download fails when
 *     a read of its body waits this long for a byte. A large artifact legitimately takes long, so
 *     its body is bounded by inactivity rather than by the read timeout; time the caller spends
 *     between reads (uploading a part elsewhere) does not count
 * @param downloadDeadline positive, at most {@link #MAX_TIMEOUT}; an output download fails when it
 *     is not complete this long after its request was sent, however steadily its bytes trickle
 * @param createPath path of the create route, starting with {@code /}
 * @param jobPathTemplate path of the snapshot route, starting with {@code /} and containing {@code
 *     {id}}
 * @param modelsPath path of the models route, starting with {@code /}
 */
public record GenaceClientConfig(
    URI baseUrl,
    String apiKey,
    Duration connectTimeout,
    Duration readTimeout,
    String createPath,
    String jobPathTemplate,
    String modelsPath,
    Duration downloadStallTimeout,
    Duration downloadDeadline) {

  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Thirty seconds without a byte: half the delivery activity's heartbeat timeout (60 s), so that a
   * stalled download fails on its own worker, and frees its thread, before Temporal gives up on the
   * attempt and retries it elsewhere.
   */
  public static final Duration DEFAULT_DOWNLOAD_STALL_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Thirty minutes: the delivery activity's start-to-close timeout. A download still running then
   * belongs to an attempt Temporal has already given up on.
   */
  public static final Duration DEFAULT_DOWNLOAD_DEADLINE = Duration.ofMinutes(30);

  /** The longest of the timeouts above that is accepted: a day. */
  public static final Duration MAX_TIMEOUT = Duration.ofDays(1);

  public static final String DEFAULT_CREATE_PATH = "/v1/generations";
  public static final String DEFAULT_JOB_PATH_TEMPLATE = "/v1/generations/{id}";
  public static final String DEFAULT_MODELS_PATH = "/v1/models";

  /** The placeholder in {@link #jobPathTemplate()} replaced by the URL-encoded job id. */
  public static final String JOB_ID_PLACEHOLDER = "{id}";

  public GenaceClientConfig {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(readTimeout, "readTimeout");
    Objects.requireNonNull(downloadStallTimeout, "downloadStallTimeout");
    Objects.requireNonNull(downloadDeadline, "downloadDeadline");
    if (apiKey == null || apiKey.isBlank()) {
      throw new IllegalArgumentException("Genace API key must not be blank");
    }
    String scheme = baseUrl.getScheme();
    if (!baseUrl.isAbsolute()
        || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
        || baseUrl.getHost() == null
        || baseUrl.getRawUserInfo() != null
        || baseUrl.getRawQuery() != null
        || baseUrl.getRawFragment() != null) {
      throw new IllegalArgumentException(
          // The URL itself is not echoed: its user info could hold a secret.
          "Genace base URL must be an absolute http or https URL without user info, query or"
              + " fragment");
    }
    requireTimeout("connectTimeout", connectTimeout);
    requireTimeout("readTimeout", readTimeout);
    requireTimeout("downloadStallTimeout", downloadStallTimeout);
    requireTimeout("downloadDeadline", downloadDeadline);
    requirePath("createPath", createPath);
    requirePath("jobPathTemplate", jobPathTemplate);
    requirePath("modelsPath", modelsPath);
    if (!jobPathTemplate.contains(JOB_ID_PLACEHOLDER)) {
      throw new IllegalArgumentException("jobPathTemplate must contain {id}: " + jobPathTemplate);
    }
  }

  /** With the default bounds on output downloads. */
  public GenaceClientConfig(
      URI baseUrl,
      String apiKey,
      Duration connectTimeout,
      Duration readTimeout,
      String createPath,
      String jobPathTemplate,
      String modelsPath) {
    this(
        baseUrl,
        apiKey,
        connectTimeout,
        readTimeout,
        createPath,
        jobPathTemplate,
        modelsPath,
        DEFAULT_DOWNLOAD_STALL_TIMEOUT,
        DEFAULT_DOWNLOAD_DEADLINE);
  }

  /**
   * The default routes and timeouts (connect 5 s, read 30 s, download stall 30 s, download 30 min).
   */
  public static GenaceClientConfig of(URI baseUrl, String apiKey) {
    return new GenaceClientConfig(
        baseUrl,
        apiKey,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_READ_TIMEOUT,
        DEFAULT_CREATE_PATH,
        DEFAULT_JOB_PATH_TEMPLATE,
        DEFAULT_MODELS_PATH);
  }

  /** A copy with other connect and read timeouts. */
  public GenaceClientConfig withTimeouts(Duration connectTimeout, Duration readTimeout) {
    return new GenaceClientConfig(
        baseUrl,
        apiKey,
        connectTimeout,
        readTimeout,
        createPath,
        jobPathTemplate,
        modelsPath,
        downloadStallTimeout,
        downloadDeadline);
  }

  /** A copy with other bounds on output downloads. */
  public GenaceClientConfig withDownloadTimeouts(
      Duration downloadStallTimeout, Duration downloadDeadline) {
    return new GenaceClientConfig(
        baseUrl,
        apiKey,
        connectTimeout,
        readTimeout,
        createPath,
        jobPathTemplate,
        modelsPath,
        downloadStallTimeout,
        downloadDeadline);
  }

  /** Masks the API key: configurations get logged. */
  @Override
  public String toString() {
    return "GenaceClientConfig[baseUrl="
        + baseUrl
        + ", apiKey=***, connectTimeout="
        + connectTimeout
        + ", readTimeout="
        + readTimeout
        + ", createPath="
        + createPath
        + ", jobPathTemplate="
        + jobPathTemplate
        + ", modelsPath="
        + modelsPath
        + ", downloadStallTimeout="
        + downloadStallTimeout
        + ", downloadDeadline="
        + downloadDeadline
        + "]";
  }

  private static void requireTimeout(String name, Duration timeout) {
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive: " + timeout);
    }
    if (timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new IllegalArgumentException(name + " must be at most " + MAX_TIMEOUT + ": " + timeout);
    }
  }

  private static void requirePath(String name, String path) {
    if (path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException(name + " must start with '/': " + path);
    }
  }
}
