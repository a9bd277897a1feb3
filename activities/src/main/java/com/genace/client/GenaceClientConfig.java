package com.genace.client;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where Genace is and how long to wait for it. {@link #toString()} masks the API key.
 *
 * @param baseUrl absolute http(s) URL, without user info, query or fragment; a path prefix is kept
 * @param apiKey non-blank bearer token
 * @param connectTimeout positive; bounds establishing a connection
 * @param readTimeout positive; bounds the wait for response headers once the request is sent
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
    String modelsPath) {

  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);
  public static final String DEFAULT_CREATE_PATH = "/v1/generations";
  public static final String DEFAULT_JOB_PATH_TEMPLATE = "/v1/generations/{id}";
  public static final String DEFAULT_MODELS_PATH = "/v1/models";

  /** The placeholder in {@link #jobPathTemplate()} replaced by the URL-encoded job id. */
  public static final String JOB_ID_PLACEHOLDER = "{id}";

  public GenaceClientConfig {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(readTimeout, "readTimeout");
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
    if (connectTimeout.isZero() || connectTimeout.isNegative()) {
      throw new IllegalArgumentException("connectTimeout must be positive: " + connectTimeout);
    }
    if (readTimeout.isZero() || readTimeout.isNegative()) {
      throw new IllegalArgumentException("readTimeout must be positive: " + readTimeout);
    }
    requirePath("createPath", createPath);
    requirePath("jobPathTemplate", jobPathTemplate);
    requirePath("modelsPath", modelsPath);
    if (!jobPathTemplate.contains(JOB_ID_PLACEHOLDER)) {
      throw new IllegalArgumentException("jobPathTemplate must contain {id}: " + jobPathTemplate);
    }
  }

  /** The default routes and timeouts (connect 5 s, read 30 s). */
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

  /** A copy with other timeouts. */
  public GenaceClientConfig withTimeouts(Duration connectTimeout, Duration readTimeout) {
    return new GenaceClientConfig(
        baseUrl, apiKey, connectTimeout, readTimeout, createPath, jobPathTemplate, modelsPath);
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
        + "]";
  }

  private static void requirePath(String name, String path) {
    if (path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException(name + " must start with '/': " + path);
    }
  }
}
