package com.genace.activities.genace;

/**
 * Root of the errors raised by {@link GenaceClient} reads ({@code get}, {@code lookUp}, {@code
 * search}, {@code listModels}, {@code openOutput}). Creation never throws for network or HTTP
 * outcomes: it returns a {@link CreateOutcome} instead, because a failed create must be classified,
 * not retried.
 *
 * <p>Messages never contain the API key. Used directly for statuses that fit no subclass (e.g. an
 * unexpected 3xx) and for interruption.
 */
public class GenaceException extends RuntimeException {
  public GenaceException(String message) {
    super(message);
  }

  public GenaceException(String message, Throwable cause) {
    super(message, cause);
  }
}
