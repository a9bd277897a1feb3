package com.genace.worker.health;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The one check of an {@code Authorization: Bearer TOKEN} header, for every endpoint that has one.
 */
public final class BearerToken {

  private BearerToken() {}

  /**
   * Whether {@code authorization} (the header's value, null when absent) carries {@code token}.
   * Compared in constant time, so that the answer's timing tells nothing of the token.
   */
  public static boolean matches(String authorization, String token) {
    byte[] expected = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    byte[] given = (authorization == null ? "" : authorization).getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(expected, given);
  }
}
