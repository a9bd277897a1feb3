package com.genace.client.model;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * How an id becomes one segment of an artifact's object key: percent-encoded as in a URL's query
 * ({@code a/b c} becomes {@code a%2Fb%20c}), and so are {@code .} and {@code *}, so that an id can
 * never add a path segment or climb out of the store. One rule for the delivery's keys and for the
 * request's bound on its operation id.
 */
public final class ObjectKeySegments {

  private ObjectKeySegments() {}

  public static String of(String id) {
    String encoded = URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    return encoded.replace(".", "%2E").replace("*", "%2A");
  }

  /** The segment's length in bytes, as an S3 key counts it (UTF-8; encoded, it is ASCII). */
  public static int bytes(String id) {
    return of(id).length();
  }
}
