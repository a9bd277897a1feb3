package com.genace.activities.delivery;

/** The artifact store could not be read or written; the message is one line, without secrets. */
public final class ArtifactStoreException extends RuntimeException {
  public ArtifactStoreException(String message) {
    super(message);
  }

  public ArtifactStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
