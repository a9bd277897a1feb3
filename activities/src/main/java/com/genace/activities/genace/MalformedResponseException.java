package com.genace.activities.genace;

/**
 * Genace answered with a body that does not honour the contract: not JSON, a field missing or of
 * the wrong type, an unknown status, another job than the one asked for. The message says what was
 * wrong. (A downloaded output that does not match its snapshot is the artifact store's {@code
 * ArtifactMismatchException}.)
 */
public class MalformedResponseException extends GenaceException {
  public MalformedResponseException(String message) {
    super(message);
  }

  public MalformedResponseException(String message, Throwable cause) {
    super(message, cause);
  }
}
