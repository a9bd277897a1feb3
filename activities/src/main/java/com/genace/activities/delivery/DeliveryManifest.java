package com.genace.activities.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.client.DeliveredArtifact;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A delivery's manifest as the ledger keeps it ({@code {"artifacts": [...]}}), and whether the
 * store still holds what it lists: one place for the delivery, and for the repairs that take a
 * manifest from Temporal's history.
 */
public final class DeliveryManifest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private DeliveryManifest() {}

  public static String json(List<DeliveredArtifact> artifacts) {
    ObjectNode manifest = JSON.createObjectNode();
    manifest.set("artifacts", JSON.valueToTree(artifacts));
    return manifest.toString();
  }

  public static List<DeliveredArtifact> parse(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      List<DeliveredArtifact> artifacts = new ArrayList<>();
      for (JsonNode item : node.path("artifacts")) {
        artifacts.add(
            new DeliveredArtifact(
                item.path("key").asText(),
                item.path("uri").asText(),
                item.path("bytes").asLong(),
                item.path("sha256").asText(),
                item.path("contentType").asText()));
      }
      return artifacts;
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The first artifact the store does not hold at its key with its size and SHA-256, described;
   * empty when it holds them all.
   */
  public static Optional<String> firstMissing(
      ArtifactStore store, List<DeliveredArtifact> artifacts) {
    if (artifacts.isEmpty()) {
      return Optional.of("the delivery recorded no artifact");
    }
    return artifacts.stream()
        .filter(a -> !store.holds(a.key(), a.bytes(), a.sha256()))
        .findFirst()
        .map(a -> "artifact " + a.key() + " is not in the store as the delivery recorded it");
  }
}
