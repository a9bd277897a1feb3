package com.genace.activities.genace;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * What Genace's answers mean to {@link HttpGenaceClient}: a create's response as its {@link
 * CreateOutcome}, an error status as the exception that tells the caller whether to retry, a body
 * as the value its parser makes of it. The API key is masked in any server-provided text that ends
 * up in a reason or a message: a careless server might echo it.
 */
final class GenaceAnswers {

  private static final int MAX_REASON = 200;

  private final GenaceClientConfig config;

  GenaceAnswers(GenaceClientConfig config) {
    this.config = config;
  }

  /** A create's response: accepted with its job id, refused, rate limited, or unknown. */
  CreateOutcome created(HttpResponse<byte[]> response) {
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

  /** A read's body as {@code parser} makes it, a malformed one failing with the key masked. */
  <T> T parsed(byte[] body, Function<byte[], T> parser) {
    try {
      return parser.apply(body);
    } catch (MalformedResponseException e) {
      String message = redact(e.getMessage());
      throw message.equals(e.getMessage()) ? e : new MalformedResponseException(message);
    }
  }

  /** The failure of a read that did not answer 200; {@code what} names the read. */
  GenaceException statusError(String what, int status, HttpResponse<?> response, byte[] body) {
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
  static byte[] errorBody(InputStream body) {
    try {
      return body.readNBytes(16 * 1024);
    } catch (IOException e) {
      return new byte[0];
    }
  }

  private static Duration retryAfter(HttpResponse<?> response) {
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

  /** Masks the key in server-provided text. */
  private String redact(String text) {
    return text.replace(config.apiKey(), "***");
  }
}
