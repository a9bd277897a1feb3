package com.genace.activities.delivery;

import java.io.IOException;

/**
 * The bytes that arrived are not those the snapshot announced (size or SHA-256): nothing is stored.
 * An {@link IOException} so that it travels through the streams a store reads.
 */
public final class ArtifactMismatchException extends IOException {
  public ArtifactMismatchException(String message) {
    super(message);
  }
}
