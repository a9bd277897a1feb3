package com.genace.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLHandshakeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link GenaceClient} over the JDK's {@link HttpClient}, HTTP/1.1, {@code Authorization: Bearer}.
 * Thread-safe; share one instance.
 *
 * <p>A create is sent at most once. The JDK client retries a request by itself only when the
 * connection could not be established (nothing was sent) or, for non-idempotent methods, when the
 * system property {@value #ALL_METHOD_RETRY_PROPERTY} is set; the constructor refuses to run with
 * that property set (a value placed in the JDK's {@code conf/net.properties} is not detected).
 *
 * <p>The API key is sent only to the configured base URL's origin (output URLs may point at a CDN)
 * and is masked in any server-provided text that ends up in a message.
 *
 * <p>Every wait on the network has a deadline over headers and body alike. The JDK client's request
 * timeout ends when the response headers arrive and nothing bounds the body, so a peer that sends
 * the headers and then holds the connection would park the calling thread for good. Each JSON
 * exchange (create, status, search, models) therefore waits at most the configured read timeout for
 * its complete response, and then cancels the exchange, which closes its connection; an output's
 * body is watched by {@link OutputBody} (a stall deadline per read and an overall deadline). A
 * create that runs out of time after its request may have been sent is an {@link
 * CreateOutcome.Unknown}; a read that does is a {@link GenaceUnavailableException}, retried by its
 * caller.
 *
 * <p>Every call is a client span (see {@link HttpSpans}), recorded by the given {@link
 * OpenTelemetry}, by default the global one (a no-op unless the process installed one).
 */
public final class HttpGenaceClient implements GenaceClient {

  /** The JDK property that would let the HTTP client resend a POST on its own. */
  public static final String ALL_METHOD_RETRY_PROPERTY = "jdk.httpclient.enableAllMethodRetry";

  private static final Logger log = LoggerFactory.getLogger(HttpGenaceClient.class);
  private static final int MAX_REASON = 200;

  private final GenaceClientConfig config;
  private final HttpClient http;
  private final String base;
  private final HttpSpans spans;

  /**
   * @throws IllegalStateException if {@value #ALL_METHOD_RETRY_PROPERTY} is set to anything but
   *     {@code false}
   */
  public HttpGenaceClient(GenaceClientConfig config) {
    this(config, GlobalOpenTelemetry.getOrNoop());
  }

  /**
   * @param openTelemetry records a span per call
   * @throws IllegalStateException if {@value #ALL_METHOD_RETRY_PROPERTY} is set to anything but
   *     {@code false}
   */
  public HttpGenaceClient(GenaceClientConfig config, OpenTelemetry openTelemetry) {
    this.config = Objects.requireNonNull(config, "config");
    this.spans = new HttpSpans(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    String allMethodRetry = System.getProperty(ALL_METHOD_RETRY_PROPERTY);
    if (allMethodRetry != null && !"false".equalsIgnoreCase(allMethodRetry.trim())) {
      throw new IllegalStateException(
          "System property "
              + ALL_METHOD_RETRY_PROPERTY
              + " is set: the JDK HTTP client could then resend a POST by itself and pay for a"
              + " second render; unset it");
    }
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(config.connectTimeout())
            // Redirects would carry a POST elsewhere or the key to another host: never follow.
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    String baseUrl = config.baseUrl().toString();
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
  }

  public GenaceClientConfig config() {
    return config;
  }

  @Override
  public CreateOutcome create(CreateRequest request) {
    Objects.requireNonNull(request, "request");
    HttpRequest post =
        authorized(URI.create(base + config.createPath()))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(createBody(request)))
            .build();
    Span span = spans.start("POST", config.createPath(), config.baseUrl());
    span.setAttribute(HttpSpans.OPERATION_ID, request.operationId());
    CreateOutcome outcome =
        traced(
            span,
            () -> {
              CreateOutcome sent = send(post);
              HttpSpans.outcome(span, sent);
              return sent;
            });
    log.debug(
        "POST {} for operation {}: {}",
        config.createPath(),
        request.operationId(),
        outcome.describe());
    return outcome;
  }

  @Override
  public JobSnapshot get(String remoteJobId) {
    if (remoteJobId == null || remoteJobId.isBlank()) {
      throw new IllegalArgumentException("remoteJobId must not be blank");
    }
    String path =
        config
            .jobPathTemplate()
            .replace(GenaceClientConfig.JOB_ID_PLACEHOLDER, encode(remoteJobId));
    Span span = spans.start("GET", config.jobPathTemplate(), config.baseUrl());
    span.setAttribute(HttpSpans.REMOTE_JOB_ID, remoteJobId);
    return traced(span, () -> read(path, body -> ResponseParser.snapshot(body, remoteJobId)));
  }

  @Override
  public Optional<RemoteJob> lookUp(String remoteJobId) {
    if (remoteJobId == null || remoteJobId.isBlank()) {
      throw new IllegalArgumentException("remoteJobId must not be blank");
    }
    String path =
        config
            .jobPathTemplate()
            .replace(GenaceClientConfig.JOB_ID_PLACEHOLDER, encode(remoteJobId));
    Span span = spans.start("GET", config.jobPathTemplate(), config.baseUrl());
    span.setAttribute(HttpSpans.REMOTE_JOB_ID, remoteJobId);
    try {
      return Optional.of(
          traced(span, () -> read(path, body -> ResponseParser.remoteJob(body, remoteJobId))));
    } catch (RemoteJobNotFoundException unknown) {
      return Optional.empty();
    }
  }

  @Override
  public Optional<List<RemoteJob>> search(String operationId) {
    if (operationId == null || operationId.isBlank()) {
      throw new IllegalArgumentException("operationId must not be blank");
    }
    String path =
        config.createPath()
            + "?operation_id="
            + URLEncoder.encode(operationId, StandardCharsets.UTF_8);
    Span span = spans.start("GET", config.createPath(), config.baseUrl());
    span.setAttribute(HttpSpans.OPERATION_ID, operationId);
    return traced(
        span,
        () -> {
          HttpRequest request = authorized(URI.create(base + path)).GET().build();
          String what = "GET " + config.createPath() + "?operation_id=...";
          HttpResponse<byte[]> response =
              exchange(request, what, HttpResponse.BodyHandlers.ofByteArray());
          int status = response.statusCode();
          if (status == 404 || status == 405 || status == 501) {
            return Optional.<List<RemoteJob>>empty();
          }
          if (status != 200) {
            throw statusError(what, status, response, response.body());
          }
          return Optional.of(ResponseParser.searchResult(response.body()));
        });
  }

  @Override
  public List<String> listModels() {
    Span span = spans.start("GET", config.modelsPath(), config.baseUrl());
    return traced(span, () -> read(config.modelsPath(), ResponseParser::models));
  }

  @Override
  public InputStream openOutput(JobOutput output) {
    Objects.requireNonNull(output, "output");
    if (!ResponseParser.isHttpUrl(output.url())) {
      throw new IllegalArgumentException("output url is not an absolute http(s) URL");
    }
    URI url = URI.create(output.url());
    String shown = withoutQuery(url);
    Span span = spans.start("GET", "output", url);
    try (Scope ignored = span.makeCurrent()) {
      HttpRequest.Builder builder =
          sameOrigin(url)
              ? authorized(url)
              : HttpRequest.newBuilder(url).timeout(config.readTimeout());
      long startedAt = System.nanoTime();
      // Completes with the headers: the read timeout bounds them, the watch below the body.
      HttpResponse<InputStream> response =
          exchange(
              builder.GET().build(), "GET " + shown, HttpResponse.BodyHandlers.ofInputStream());
      OutputBody body =
          OutputBody.watched(
              response.body(),
              span,
              "Genace GET " + shown,
              config.downloadStallTimeout(),
              config.downloadDeadline(),
              startedAt);
      if (response.statusCode() != 200) {
        byte[] error;
        try {
          error = errorBody(body);
        } finally {
          body.discard(); // the span ends below, with the error
        }
        throw statusError("GET " + shown, response.statusCode(), response, error);
      }
      return body;
    } catch (RuntimeException e) {
      HttpSpans.failed(span, e);
      span.end();
      throw e;
    }
  }

  /** Runs the call with the span current, and ends it. */
  private static <T> T traced(Span span, Supplier<T> call) {
    try (Scope ignored = span.makeCurrent()) {
      return call.get();
    } catch (RuntimeException e) {
      HttpSpans.failed(span, e);
      throw e;
    } finally {
      span.end();
    }
  }

  private CreateOutcome send(HttpRequest post) {
    HttpResponse<byte[]> response;
    try {
      response = complete(post, HttpResponse.BodyHandlers.ofByteArray());
      HttpSpans.status(Span.current(), response.statusCode());
    } catch (HttpConnectTimeoutException e) {
      return new CreateOutcome.NotSent(
          "connection not established within " + config.connectTimeout());
    } catch (HttpTimeoutException | TimeoutException e) {
      // Headers or body late: the request may have been sent and a job created. Never NotSent.
      return new CreateOutcome.Unknown(
          "no response within "
              + config.readTimeout()
              + " (headers and body); the request may have been sent");
    } catch (IOException e) {
      if (hasCause(e, UnresolvedAddressException.class)
          || hasCause(e, UnknownHostException.class)) {
        return new CreateOutcome.NotSent(
            "host " + config.baseUrl().getHost() + " could not be resolved");
      }
      if (e instanceof ConnectException || e instanceof SSLHandshakeException) {
        // Both end before a single byte of the HTTP request is written.
        return new CreateOutcome.NotSent("connection not established: " + describe(e));
      }
      return new CreateOutcome.Unknown("connection failed after sending: " + describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new CreateOutcome.Unknown("interrupted while waiting for the response");
    }
    return classify(response);
  }

  private CreateOutcome classify(HttpResponse<byte[]> response) {
    int status = response.statusCode();
    byte[] body = response.body();
    if (status >= 200 && status < 300) {
      return ResponseParser.createdJobId(body)
          .<CreateOutcome>map(
              id -> new CreateOutcome.Accepted(id, ResponseParser.createdStatus(body).orElse(null)))
          .orElseGet(
              () ->
                  new CreateOutcome.Unknown(
                      "HTTP " + status + " without a job id in the body; a job may exist",
                      OptionalInt.of(status)));
    }
    if (Refusals.STATUSES.contains(status)) {
      return Refusals.classify(status, body, reason(status, body));
    }
    if (status == 429) {
      return new CreateOutcome.RateLimited(retryAfter(response));
    }
    return new CreateOutcome.Unknown(reason(status, body), OptionalInt.of(status));
  }

  private <T> T read(String path, Function<byte[], T> parser) {
    HttpRequest request = authorized(URI.create(base + path)).GET().build();
    String what = "GET " + path;
    HttpResponse<byte[]> response =
        exchange(request, what, HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw statusError(what, response.statusCode(), response, response.body());
    }
    try {
      return parser.apply(response.body());
    } catch (MalformedResponseException e) {
      String message = redact(e.getMessage());
      throw message.equals(e.getMessage()) ? e : new MalformedResponseException(message);
    }
  }

  private <T> HttpResponse<T> exchange(
      HttpRequest request, String what, HttpResponse.BodyHandler<T> handler) {
    try {
      HttpResponse<T> response = complete(request, handler);
      HttpSpans.status(Span.current(), response.statusCode());
      return response;
    } catch (HttpTimeoutException e) {
      throw new GenaceUnavailableException("Genace " + what + " timed out: " + describe(e), e);
    } catch (TimeoutException e) {
      throw new GenaceUnavailableException(
          "Genace " + what + " timed out: no response within " + config.readTimeout(), e);
    } catch (IOException e) {
      throw new GenaceUnavailableException("Genace " + what + " failed: " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GenaceException("interrupted during Genace " + what, e);
    }
  }

  /**
   * Sends the request and waits at most the read timeout for what the handler completes with: the
   * whole body for a byte-array handler, the headers for a stream. On timeout or interruption the
   * exchange is cancelled, which closes its connection and frees this thread.
   *
   * @throws TimeoutException when the read timeout passed first
   * @throws IOException as {@link HttpClient#send} throws it
   */
  private <T> HttpResponse<T> complete(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException, TimeoutException {
    CompletableFuture<HttpResponse<T>> pending = http.sendAsync(request, handler);
    try {
      return pending.get(config.readTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | InterruptedException e) {
      pending.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      throw rethrown(e.getCause());
    }
  }

  /** The cause of a failed exchange as {@link HttpClient#send} would have thrown it. */
  private static IOException rethrown(Throwable cause) {
    Throwable c = cause;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof IOException io) {
      return io;
    }
    if (c instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (c instanceof Error error) {
      throw error;
    }
    return new IOException(c);
  }

  private GenaceException statusError(
      String what, int status, HttpResponse<?> response, byte[] body) {
    String message = "Genace " + what + " failed: " + reason(status, body);
    if (status == 401 || status == 403) {
      return new GenaceAuthenticationException(message);
    }
    if (status == 404) {
      return new RemoteJobNotFoundException(message);
    }
    if (status == 429) {
      return new GenaceRateLimitedException(message, retryAfter(response));
    }
    if (status >= 500) {
      return new GenaceUnavailableException(message);
    }
    return new GenaceException(message);
  }

  /** The start of an error body, enough for its message; an unreadable one counts as empty. */
  private static byte[] errorBody(InputStream body) {
    try {
      return body.readNBytes(16 * 1024);
    } catch (IOException e) {
      return new byte[0];
    }
  }

  private HttpRequest.Builder authorized(URI uri) {
    return HttpRequest.newBuilder(uri)
        .timeout(config.readTimeout())
        .header("Authorization", "Bearer " + config.apiKey())
        .header("Accept", "application/json");
  }

  private byte[] createBody(CreateRequest request) {
    ObjectNode body = ResponseParser.MAPPER.createObjectNode();
    body.put("model", request.model());
    body.set("input", request.input());
    body.putObject("metadata").put("operation_id", request.operationId());
    try {
      return ResponseParser.MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not serialise a JSON tree", e);
    }
  }

  private java.time.Duration retryAfter(HttpResponse<?> response) {
    return ResponseParser.retryAfter(response.headers().firstValue("Retry-After"), Instant.now());
  }

  /** "HTTP 422: <server message>", with the key masked and the length bounded. */
  private String reason(int status, byte[] body) {
    String reason =
        ResponseParser.errorMessage(body)
            .map(message -> "HTTP " + status + ": " + message)
            .orElse("HTTP " + status);
    return ResponseParser.truncate(redact(reason), MAX_REASON);
  }

  /** Masks the key in server-provided text: a careless server might echo it. */
  private String redact(String text) {
    return text.replace(config.apiKey(), "***");
  }

  private boolean sameOrigin(URI url) {
    URI baseUrl = config.baseUrl();
    return url.getScheme().equalsIgnoreCase(baseUrl.getScheme())
        && url.getHost().equalsIgnoreCase(baseUrl.getHost())
        && effectivePort(url) == effectivePort(baseUrl);
  }

  static int effectivePort(URI uri) {
    if (uri.getPort() != -1) {
      return uri.getPort();
    }
    return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }

  /** Pre-signed URLs carry credentials in the query: never show it. */
  private static String withoutQuery(URI url) {
    return url.getScheme() + "://" + url.getRawAuthority() + url.getRawPath();
  }

  private static String encode(String id) {
    // URLEncoder targets forms; in a path segment a space must be %20, not '+'.
    return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
  }
}
