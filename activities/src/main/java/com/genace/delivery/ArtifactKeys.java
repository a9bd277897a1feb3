package com.genace.delivery;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The deterministic object key of an output: {@code generations/<operation>/<remote job>/<index>}
 * plus an extension from its content type. The same output always maps to the same key, so a
 * retried delivery finds what an earlier attempt copied.
 */
public final class ArtifactKeys {

  private static final Map<String, String> EXTENSIONS =
      Map.of(
          "image/png", ".png",
          "image/jpeg", ".jpg",
          "image/webp", ".webp",
          "video/mp4", ".mp4",
          "audio/mpeg", ".mp3",
          "application/json", ".json",
          "text/plain", ".txt");

  private ArtifactKeys() {}

  public static String of(String operationId, String remoteJobId, int index, String contentType) {
    String type =
        contentType == null ? "" : contentType.split(";")[0].trim().toLowerCase(Locale.ROOT);
    return "generations/"
        + segment(operationId)
        + "/"
        + segment(remoteJobId)
        + "/"
        + index
        + EXTENSIONS.getOrDefault(type, ".bin");
  }

  /** Percent-encodes everything but safe characters, so ids can never form a path traversal. */
  private static String segment(String id) {
    String encoded = URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    return encoded.replace(".", "%2E").replace("*", "%2A");
  }
}
