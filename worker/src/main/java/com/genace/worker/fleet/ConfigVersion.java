package com.genace.worker.fleet;

import java.time.Instant;

/**
 * The fleet's current configuration version: which one, who set it, why, and when.
 *
 * @param reason why, for the record, or null
 */
public record ConfigVersion(String version, String changedBy, String reason, Instant since) {

  /** Long enough for a date, a release name or a commit id. */
  public static final int MAX_LENGTH = 100;

  /**
   * Checks a version as a worker or an operator gives it: 1 to {@value #MAX_LENGTH} visible ASCII
   * characters, no spaces.
   *
   * @throws IllegalArgumentException saying what is wrong (the caller adds the variable or option)
   */
  public static String require(String version) {
    if (version == null || version.isEmpty()) {
      throw new IllegalArgumentException("a configuration version must not be empty");
    }
    if (version.length() > MAX_LENGTH || !version.matches("[\\x21-\\x7e]+")) {
      throw new IllegalArgumentException(
          "a configuration version is 1 to "
              + MAX_LENGTH
              + " visible ASCII characters without spaces, e.g. 2024-06-01.1");
    }
    return version;
  }
}
