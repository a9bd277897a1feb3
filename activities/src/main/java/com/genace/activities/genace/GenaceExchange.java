package com.genace.activities.genace;

import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import javax.net.ssl.SSLHandshakeException;

/**
 * The HTTP exchanges of {@link HttpGenaceClient}: the requests, who gets the key, and the deadline
 * over each exchange's headers and body.
 *
 * <p>The JDK client's request timeout ends when the response headers arrive and nothing bounds the
 * body, so a peer that sends the headers and then holds the connection would park the calling
 * thread for good. Each exchange therefore waits at most the configured read timeout for what its
 * body handler completes with (the whole body of a JSON answer, the headers of a stream), and then
 * cancels the exchange, which closes its connection.
 *
 * <p>The API key is sent only to the configured base URL's origin (output URLs may point at a CDN).
 */
final class GenaceExchange {

  private final GenaceClientConfig config;
  private final HttpClient http;
  private final String base;

  GenaceExchange(GenaceClientConfig config) {
    this.config = config;
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

  /** A request to {@code path} (and its query) under the base URL, with the key. */
  HttpRequest.Builder authorized(String path) {
    return authorized(URI.create(base + path));
  }

  /** A request to {@code url}, with the key only if it is at the base URL's origin. */
  HttpRequest.Builder to(URI url) {
    return sameOrigin(url)
        ? authorized(url)
        : HttpRequest.newBuilder(url).timeout(config.readTimeout());
  }

  private HttpRequest.Builder authorized(URI uri) {
    return HttpRequest.newBuilder(uri)
        .timeout(config.readTimeout())
        .header("Authorization", "Bearer " + config.apiKey())
        .header("Accept", "application/json");
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

  /**
   * Sends a create's POST, once. A failure that provably ended before the request was written is
   * {@link CreateOutcome.NotSent}; any other failure, a timeout included, is {@link
   * CreateOutcome.Unknown}. A response is what {@code answered} makes of it.
   */
  CreateOutcome post(HttpRequest post, Function<HttpResponse<byte[]>, CreateOutcome> answered) {
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
    return answered.apply(response);
  }

  /**
   * A read's exchange; {@code what} names it in failures.
   *
   * @throws GenaceUnavailableException when it timed out or failed on the network: retried by the
   *     caller
   */
  <T> HttpResponse<T> exchange(
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
