package com.genace.activities.genace;

/**
 * Genace could not be reached or answered 5xx, or a read timed out: transient, safe to retry for
 * reads.
 */
public class GenaceUnavailableException extends GenaceException {
  public GenaceUnavailableException(String message) {
    super(message);
  }

  public GenaceUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
