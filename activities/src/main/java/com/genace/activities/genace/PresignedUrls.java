package com.genace.activities.genace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.net.URI;
import java.util.Iterator;
import java.util.Map;

/**
 * Pre-signed URLs (Genace's output URLs) carry credentials in their query: wherever one is shown (a
 * log line, a span, {@code ops show}), it is shown without it. The ledger keeps the whole URL,
 * which delivery needs to download the output.
 */
public final class PresignedUrls {

  /** What stands in for a query that was removed. */
  static final String REDACTED_QUERY = "?<query redacted>";

  private PresignedUrls() {}

  /** {@code url} without its query and fragment. */
  public static String withoutQuery(URI url) {
    return url.getScheme() + "://" + url.getRawAuthority() + url.getRawPath();
  }

  /**
   * A copy of {@code json} in which every text that is an absolute http(s) URL with a query has
   * that query replaced by {@value #REDACTED_QUERY}.
   */
  public static JsonNode redacted(JsonNode json) {
    if (json == null) {
      return null;
    }
    JsonNode copy = json.deepCopy();
    redactInPlace(copy);
    return copy;
  }

  private static void redactInPlace(JsonNode node) {
    if (node instanceof ObjectNode object) {
      Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        if (field.getValue().isTextual()) {
          field.setValue(TextNode.valueOf(redacted(field.getValue().asText())));
        } else {
          redactInPlace(field.getValue());
        }
      }
    } else if (node instanceof ArrayNode array) {
      for (int i = 0; i < array.size(); i++) {
        if (array.get(i).isTextual()) {
          array.set(i, TextNode.valueOf(redacted(array.get(i).asText())));
        } else {
          redactInPlace(array.get(i));
        }
      }
    }
  }

  /** {@code text} with its query redacted when it is an absolute http(s) URL that has one. */
  public static String redacted(String text) {
    if (!ResponseParser.isHttpUrl(text)) {
      return text;
    }
    try {
      URI url = URI.create(text);
      return url.getRawQuery() == null ? text : withoutQuery(url) + REDACTED_QUERY;
    } catch (IllegalArgumentException notAUrl) {
      return text;
    }
  }
}
