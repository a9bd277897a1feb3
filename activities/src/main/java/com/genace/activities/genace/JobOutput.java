package com.genace.activities.genace;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One artifact of a succeeded job, as listed in the snapshot.
 *
 * @param url absolute http(s) URL that serves the bytes
 * @param contentType media type announced by Genace
 * @param bytes exact size in bytes, {@code >= 0}
 * @param sha256 lowercase hex SHA-256 of the bytes (64 characters)
 */
public record JobOutput(String url, String contentType, long bytes, String sha256) {
  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

  public JobOutput {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(sha256, "sha256");
    if (url.isBlank()) {
      throw new IllegalArgumentException("output url must not be blank");
    }
    if (bytes < 0) {
      throw new IllegalArgumentException("output bytes must be >= 0: " + bytes);
    }
    if (!isSha256Hex(sha256)) {
      throw new IllegalArgumentException("output sha256 must be 64 lowercase hex characters");
    }
  }

  static boolean isSha256Hex(String value) {
    return value != null && SHA256_HEX.matcher(value).matches();
  }
}
