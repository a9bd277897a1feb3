package com.genace.client.review;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a resolution sent by signal (from the Web UI, {@code temporal workflow signal} or the
 * client) from its raw JSON, so that a payload of any shape is answered with a reason instead of
 * being dropped before the workflow sees it.
 */
public final class ResolutionPayload {

  /** The field of signed approvals: an array of {@link Approval} objects. */
  public static final String APPROVALS = "approvals";

  /** The fields a resolution may have; any other is refused, since it may be a misspelt one. */
  public static final List<String> FIELDS =
      List.of("decision", "remoteJobId", "reason", "resolvedBy", APPROVALS);

  /** The fields of one approval. */
  static final List<String> APPROVAL_FIELDS =
      List.of("approver", "operationId", "decision", "evidenceSha256", "expiresAt", "signature");

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
    List<Approval> approvals = new ArrayList<>();
    for (Map.Entry<String, JsonNode> field : payload.properties()) {
      if (!FIELDS.contains(field.getKey())) {
        return Parsed.refused("unknown field '" + field.getKey() + "'; expected " + FIELDS);
      }
      JsonNode value = field.getValue();
      if (field.getKey().equals(APPROVALS)) {
        String problem = readApprovals(value, approvals);
        if (problem != null) {
          return Parsed.refused(problem);
        }
      } else if (!value.isTextual() && !value.isNull()) {
        return Parsed.refused("field '" + field.getKey() + "' must be a string");
      }
    }
    return new Parsed(
        new ReviewResolution(
            text(payload, "decision"),
            text(payload, "remoteJobId"),
            text(payload, "reason"),
            text(payload, "resolvedBy"),
            approvals),
        null);
  }

  /** Whether the payload carries approvals (a field 0.1.0 did not know). */
  public static boolean carriesApprovals(JsonNode payload) {
    return payload != null && payload.isObject() && payload.has(APPROVALS);
  }

  /** Reads {@code value} into {@code approvals}; the problem, or null. */
  private static String readApprovals(JsonNode value, List<Approval> approvals) {
    if (value.isNull()) {
      return null;
    }
    if (!value.isArray()) {
      return "field '" + APPROVALS + "' must be an array of approvals";
    }
    for (JsonNode item : value) {
      if (!item.isObject()) {
        return "each approval must be an object with " + APPROVAL_FIELDS;
      }
      for (Map.Entry<String, JsonNode> field : item.properties()) {
        if (!APPROVAL_FIELDS.contains(field.getKey())) {
          return "unknown approval field '" + field.getKey() + "'; expected " + APPROVAL_FIELDS;
        }
        if (!field.getValue().isTextual()) {
          return "approval field '" + field.getKey() + "' must be a string";
        }
      }
      approvals.add(
          new Approval(
              text(item, "approver"),
              text(item, "operationId"),
              text(item, "decision"),
              text(item, "evidenceSha256"),
              text(item, "expiresAt"),
              text(item, "signature")));
    }
    return null;
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
