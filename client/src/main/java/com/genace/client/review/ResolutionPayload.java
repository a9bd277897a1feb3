package com.genace.client.review;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * Reads a resolution sent by signal (from the Web UI, {@code temporal workflow signal} or the
 * client) from its raw JSON, so that a payload of any shape is answered with a reason instead of
 * being dropped before the workflow sees it.
 */
public final class ResolutionPayload {

  /** The fields a resolution may have; any other is refused, since it may be a misspelt one. */
  public static final List<String> FIELDS =
      List.of("decision", "remoteJobId", "reason", "resolvedBy");

  /** How much of a refused payload is repeated back. */
  static final int SHOWN_LENGTH = 200;

  private ResolutionPayload() {}

  /**
   * @return the resolution, or the reason the payload is not one
   */
  public static Parsed parse(JsonNode payload) {
    if (payload == null || payload.isNull() || payload.isMissingNode()) {
      return Parsed.refused("the resolution is empty");
    }
    if (!payload.isObject()) {
      return Parsed.refused(
          "a resolution is a JSON object with "
              + FIELDS
              + ", not "
              + payload.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
    }
    for (Map.Entry<String, JsonNode> field : payload.properties()) {
      if (!FIELDS.contains(field.getKey())) {
        return Parsed.refused("unknown field '" + field.getKey() + "'; expected " + FIELDS);
      }
      JsonNode value = field.getValue();
      if (!value.isTextual() && !value.isNull()) {
        return Parsed.refused("field '" + field.getKey() + "' must be a string");
      }
    }
    return new Parsed(
        new ReviewResolution(
            text(payload, "decision"),
            text(payload, "remoteJobId"),
            text(payload, "reason"),
            text(payload, "resolvedBy")),
        null);
  }

  /** The payload as received, cut short, to say which one was refused. */
  public static String shown(JsonNode payload) {
    String text = payload == null ? "null" : payload.toString();
    return text.length() <= SHOWN_LENGTH ? text : text.substring(0, SHOWN_LENGTH) + "…";
  }

  private static String text(JsonNode payload, String field) {
    JsonNode value = payload.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  /** A resolution, or the problem with the payload (exactly one is non-null). */
  public record Parsed(ReviewResolution resolution, String problem) {
    static Parsed refused(String problem) {
      return new Parsed(null, problem);
    }
  }
}
