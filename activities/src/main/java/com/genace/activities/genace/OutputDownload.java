package com.genace.activities.genace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Objects;

/**
 * Opens a job's output for {@link HttpGenaceClient#openOutput}. The read timeout bounds the wait
 * for the response headers; the body is watched by {@link OutputBody} (a stall deadline per read
 * and an overall deadline), which also ends the call's span when the caller closes it. The URL's
 * query, where pre-signed URLs carry their credentials, is never shown.
 */
final class OutputDownload {

  private final GenaceClientConfig config;
  private final GenaceExchange exchange;
  private final GenaceAnswers answers;
  private final HttpSpans spans;

  OutputDownload(
      GenaceClientConfig config, GenaceExchange exchange, GenaceAnswers answers, HttpSpans spans) {
    this.config = config;
    this.exchange = exchange;
    this.answers = answers;
    this.spans = spans;
  }

  InputStream open(JobOutput output) {
    Objects.requireNonNull(output, "output");
    if (!ResponseParser.isHttpUrl(output.url())) {
      throw new IllegalArgumentException("output url is not an absolute http(s) URL");
    }
    URI url = URI.create(output.url());
    String shown = PresignedUrls.withoutQuery(url);
    Span span = spans.start("GET", "output", url);
    try (Scope ignored = span.makeCurrent()) {
      long startedAt = System.nanoTime();
      // Completes with the headers: the read timeout bounds them, the watch below the body.
      HttpResponse<InputStream> response =
          exchange.exchange(
              exchange.to(url).GET().build(),
              "GET " + shown,
              HttpResponse.BodyHandlers.ofInputStream());
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
          error = GenaceAnswers.errorBody(body);
        } finally {
          body.discard(); // the span ends below, with the error
        }
        throw answers.statusError("GET " + shown, response.statusCode(), response, error);
      }
      return body;
    } catch (RuntimeException e) {
      HttpSpans.failed(span, e);
      span.end();
      throw e;
    }
  }
}
