package com.genace.activities.genace;

import java.time.Duration;

/** Genace answered 429; the caller should wait at least {@link #retryAfter()} before retrying. */
public class GenaceRateLimitedException extends GenaceException {
  private final Duration retryAfter;

  public GenaceRateLimitedException(String message, Duration retryAfter) {
    super(message);
    this.retryAfter = retryAfter;
  }

  /** How long Genace asked us to wait (from {@code Retry-After}, default one second). */
  public Duration retryAfter() {
    return retryAfter;
  }
}
