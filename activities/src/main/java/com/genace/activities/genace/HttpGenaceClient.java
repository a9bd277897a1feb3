package com.genace.activities.genace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.io.InputStream;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
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
 * and is masked in any server-provided text that ends up in a message ({@link GenaceAnswers}).
 *
 * <p>Every wait on the network has a deadline over headers and body alike. Each JSON exchange
 * (create, status, search, models) waits at most the configured read timeout for its complete
 * response, and then cancels the exchange, which closes its connection ({@link GenaceExchange}); an
 * output's body is watched by {@link OutputBody} (a stall deadline per read and an overall
 * deadline). A create that runs out of time after its request may have been sent is an {@link
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

  private final GenaceClientConfig config;
  private final HttpSpans spans;
  private final GenaceExchange exchange;
  private final GenaceAnswers answers;
  private final OutputDownload download;

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
    this.exchange = new GenaceExchange(config);
    this.answers = new GenaceAnswers(config);
    this.download = new OutputDownload(config, exchange, answers, spans);
  }

  public GenaceClientConfig config() {
    return config;
  }

  @Override
  public CreateOutcome create(CreateRequest request) {
    Objects.requireNonNull(request, "request");
    HttpRequest post =
        exchange
            .authorized(config.createPath())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(createBody(request)))
            .build();
    Span span = spans.start("POST", config.createPath(), config.baseUrl());
    span.setAttribute(HttpSpans.OPERATION_ID, request.operationId());
    CreateOutcome outcome =
        traced(
            span,
            () -> {
              CreateOutcome sent = exchange.post(post, answers::created);
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
          HttpRequest request = exchange.authorized(path).GET().build();
          String what = "GET " + config.createPath() + "?operation_id=...";
          HttpResponse<byte[]> response =
              exchange.exchange(request, what, HttpResponse.BodyHandlers.ofByteArray());
          int status = response.statusCode();
          if (status == 404 || status == 405 || status == 501) {
            return Optional.<List<RemoteJob>>empty();
          }
          if (status != 200) {
            throw answers.statusError(what, status, response, response.body());
          }
          return Optional.of(answers.parsed(response.body(), ResponseParser::searchResult));
        });
  }

  @Override
  public List<String> listModels() {
    Span span = spans.start("GET", config.modelsPath(), config.baseUrl());
    return traced(span, () -> read(config.modelsPath(), ResponseParser::models));
  }

  @Override
  public InputStream openOutput(JobOutput output) {
    return download.open(output);
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

  private <T> T read(String path, Function<byte[], T> parser) {
    HttpRequest request = exchange.authorized(path).GET().build();
    String what = "GET " + path;
    HttpResponse<byte[]> response =
        exchange.exchange(request, what, HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw answers.statusError(what, response.statusCode(), response, response.body());
    }
    return answers.parsed(response.body(), parser);
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

  private static String encode(String id) {
    // URLEncoder targets forms; in a path segment a space must be %20, not '+'.
    return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
