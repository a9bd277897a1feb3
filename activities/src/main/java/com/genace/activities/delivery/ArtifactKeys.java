package com.genace.activities.delivery;

import com.genace.client.model.ObjectKeySegments;
import java.util.Locale;
import java.util.Map;

/**
 * The deterministic object key of an output: {@code generations/<operation>/<remote job>/<index>}
 * plus an extension from its content type. The same output always maps to the same key, so a
 * retried delivery finds what an earlier attempt copied. Ids are encoded by {@link
 * ObjectKeySegments}: an id can never add a path segment or climb out of the store.
 */
public final class ArtifactKeys {

  /** Content type (without parameters, lower case) to extension; any other type is {@code .bin}. */
  private static final Map<String, String> EXTENSIONS =
      Map.ofEntries(
          Map.entry("image/png", ".png"),
          Map.entry("image/jpeg", ".jpg"),
          Map.entry("image/webp", ".webp"),
          Map.entry("image/gif", ".gif"),
          Map.entry("image/avif", ".avif"),
          Map.entry("video/mp4", ".mp4"),
          Map.entry("video/webm", ".webm"),
          Map.entry("video/quicktime", ".mov"),
          Map.entry("audio/mpeg", ".mp3"),
          Map.entry("audio/wav", ".wav"),
          Map.entry("audio/ogg", ".ogg"),
          Map.entry("model/gltf-binary", ".glb"),
          Map.entry("application/json", ".json"),
          Map.entry("text/plain", ".txt"));

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
    return ObjectKeySegments.of(id);
  }
}
