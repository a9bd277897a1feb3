package com.genace.client;

/**
 * Genace answered with a body that does not honour the contract: not JSON, a field missing or of
 * the wrong type, an unknown status, or a downloaded output that does not match its snapshot. The
 * message says what was wrong.
 */
public class MalformedResponseException extends GenaceException {
  public MalformedResponseException(String message) {
    super(message);
  }

  public MalformedResponseException(String message, Throwable cause) {
    super(message, cause);
  }
}
