package com.genace.activities.genace;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.workflows.model.RemoteStatus;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns Genace response bodies into values, strictly: anything the contract requires and the body
 * lacks becomes a {@link MalformedResponseException} that names the field. Unknown fields are
 * ignored so that Genace can add some without breaking us.
 */
final class ResponseParser {

  /** Shared and thread-safe once configured. */
  static final ObjectMapper MAPPER =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

  private static final int MAX_ECHOED_VALUE = 80;

  private ResponseParser() {}

  /** Parses a job snapshot and checks that it is the job that was asked for. */
  static JobSnapshot snapshot(byte[] body, String requestedId) {
    String what = "job snapshot";
    JsonNode root = object(body, what);
    String id = requiredText(root, "id", "id", what);
    if (!id.equals(requestedId)) {
      throw malformed(
          what, "field 'id' is '" + echo(id) + "' but '" + echo(requestedId) + "' was requested");
    }
    String wireStatus = requiredText(root, "status", "status", what);
    RemoteStatus status;
    try {
      status = RemoteStatus.parse(wireStatus);
    } catch (IllegalArgumentException e) {
      throw malformed(what, "field 'status' has unknown value '" + echo(wireStatus) + "'");
    }
    List<JobOutput> outputs = outputs(root.get("outputs"), what);
    if (status == RemoteStatus.SUCCEEDED && outputs.isEmpty()) {
      throw malformed(what, "field 'outputs' is empty but status is 'succeeded'");
    }
    return new JobSnapshot(id, status, outputs, errorMessage(root).orElse(null));
  }

  /** Parses a job snapshot for its identity: id, status, creation time, echoed operation id. */
  static RemoteJob remoteJob(byte[] body, String requestedId) {
    String what = "job snapshot";
    RemoteJob job = remoteJob(object(body, what), what, "");
    if (!job.id().equals(requestedId)) {
      throw malformed(
          what,
          "field 'id' is '" + echo(job.id()) + "' but '" + echo(requestedId) + "' was requested");
    }
    return job;
  }

  /** Parses the search's {@code {"data": [<job>, ...]}}. */
  static List<RemoteJob> searchResult(byte[] body) {
    String what = "search result";
    JsonNode data = object(body, what).get("data");
    if (data == null || !data.isArray()) {
      throw malformed(what, "field 'data' is " + (data == null ? "missing" : "not an array"));
    }
    List<RemoteJob> jobs = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      if (!data.get(i).isObject()) {
        throw malformed(what, "field 'data[" + i + "]' is not an object");
      }
      jobs.add(remoteJob(data.get(i), what, "data[" + i + "]."));
    }
    return List.copyOf(jobs);
  }

  private static RemoteJob remoteJob(JsonNode job, String what, String at) {
    String id = requiredText(job, "id", at + "id", what);
    String wireStatus = requiredText(job, "status", at + "status", what);
    RemoteStatus status;
    try {
      status = RemoteStatus.parse(wireStatus);
    } catch (IllegalArgumentException e) {
      throw malformed(
          what, "field '" + at + "status' has unknown value '" + echo(wireStatus) + "'");
    }
    JsonNode created = job.get("created_at");
    JsonNode operation = job.path("metadata").get("operation_id");
    return new RemoteJob(
        id,
        status,
        created != null && created.isTextual() ? echo(created.asText()) : null,
        operation != null && operation.isTextual() ? operation.asText() : null);
  }

  /** Parses {@code {"data": [{"id": "..."}, ...]}}. */
  static List<String> models(byte[] body) {
    String what = "model list";
    JsonNode data = object(body, what).get("data");
    if (data == null || !data.isArray()) {
      throw malformed(what, "field 'data' is " + (data == null ? "missing" : "not an array"));
    }
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      JsonNode model = data.get(i);
      if (!model.isObject()) {
        throw malformed(what, "field 'data[" + i + "]' is not an object");
      }
      ids.add(requiredText(model, "id", "data[" + i + "].id", what));
    }
    return List.copyOf(ids);
  }

  /** The non-blank string {@code id} of a create response, if the body has one. */
  static Optional<String> createdJobId(byte[] body) {
    JsonNode id = tryObject(body).map(root -> root.get("id")).orElse(null);
    return id != null && id.isTextual() && !id.asText().isBlank()
        ? Optional.of(id.asText())
        : Optional.empty();
  }

  /** The {@code status} string of a create response, if present. */
  static Optional<String> createdStatus(byte[] body) {
    JsonNode status = tryObject(body).map(root -> root.get("status")).orElse(null);
    return status != null && status.isTextual() ? Optional.of(status.asText()) : Optional.empty();
  }

  /** The server's explanation in an error body: {@code error.message}, or a top-level message. */
  static Optional<String> errorMessage(byte[] body) {
    return tryObject(body).flatMap(ResponseParser::errorMessage);
  }

  /** The machine-readable {@code error.code} of an error body, if it has one. */
  static Optional<String> errorCode(byte[] body) {
    return tryObject(body)
        .map(root -> root.path("error").path("code"))
        .filter(JsonNode::isTextual)
        .map(JsonNode::asText);
  }

  /**
   * {@code Retry-After} as delta-seconds or an HTTP-date; one second when absent, malformed or
   * negative, so a caller always waits a little.
   */
  static Duration retryAfter(Optional<String> header, Instant now) {
    if (header.isEmpty() || header.get().isBlank()) {
      return DEFAULT_RETRY_AFTER;
    }
    String value = header.get().trim();
    try {
      long seconds = Long.parseLong(value);
      return seconds >= 0 ? Duration.ofSeconds(seconds) : DEFAULT_RETRY_AFTER;
    } catch (NumberFormatException notSeconds) {
      try {
        Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        Duration wait = Duration.between(now, at);
        return wait.isNegative() ? Duration.ZERO : wait;
      } catch (DateTimeParseException notADate) {
        return DEFAULT_RETRY_AFTER;
      }
    }
  }

  /** Cuts server-provided text so that a huge body cannot flood messages and logs. */
  static String truncate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max) + "...";
  }

  private static Optional<String> errorMessage(JsonNode root) {
    JsonNode error = root.get("error");
    if (error != null && error.isObject() && error.path("message").isTextual()) {
      return Optional.of(error.get("message").asText());
    }
    if (error != null && error.isTextual()) {
      return Optional.of(error.asText());
    }
    JsonNode message = root.get("message");
    return message != null && message.isTextual()
        ? Optional.of(message.asText())
        : Optional.empty();
  }

  private static List<JobOutput> outputs(JsonNode outputs, String what) {
    if (outputs == null || outputs.isNull()) {
      return List.of();
    }
    if (!outputs.isArray()) {
      throw malformed(what, "field 'outputs' is not an array");
    }
    List<JobOutput> result = new ArrayList<>();
    for (int i = 0; i < outputs.size(); i++) {
      String at = "outputs[" + i + "]";
      JsonNode output = outputs.get(i);
      if (!output.isObject()) {
        throw malformed(what, "field '" + at + "' is not an object");
      }
      String url = requiredText(output, "url", at + ".url", what);
      if (!isHttpUrl(url)) {
        throw malformed(what, "field '" + at + ".url' is not an absolute http(s) URL");
      }
      String contentType = requiredText(output, "content_type", at + ".content_type", what);
      JsonNode bytes = output.get("bytes");
      if (bytes == null || !bytes.isIntegralNumber() || !bytes.canConvertToLong()) {
        throw malformed(
            what, "field '" + at + ".bytes' is " + (bytes == null ? "missing" : "not an integer"));
      }
      if (bytes.asLong() < 0) {
        throw malformed(what, "field '" + at + ".bytes' is negative");
      }
      String sha256 = requiredText(output, "sha256", at + ".sha256", what).toLowerCase(Locale.ROOT);
      if (!JobOutput.isSha256Hex(sha256)) {
        throw malformed(what, "field '" + at + ".sha256' is not 64 hex characters");
      }
      result.add(new JobOutput(url, contentType, bytes.asLong(), sha256));
    }
    return result;
  }

  static boolean isHttpUrl(String url) {
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme();
      return uri.isAbsolute()
          && ("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
          && uri.getHost() != null;
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }

  private static String requiredText(JsonNode node, String field, String path, String what) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw malformed(what, "field '" + path + "' is missing");
    }
    if (!value.isTextual()) {
      throw malformed(what, "field '" + path + "' is not a string");
    }
    if (value.asText().isBlank()) {
      throw malformed(what, "field '" + path + "' is blank");
    }
    return value.asText();
  }

  private static JsonNode object(byte[] body, String what) {
    if (body.length == 0) {
      throw malformed(what, "body is empty");
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw malformed(what, "body is not JSON");
    } catch (IOException e) {
      throw malformed(what, "body could not be read");
    }
    if (root == null || !root.isObject()) {
      throw malformed(what, "body is not a JSON object");
    }
    return root;
  }

  private static Optional<JsonNode> tryObject(byte[] body) {
    try {
      JsonNode root = body.length == 0 ? null : MAPPER.readTree(body);
      return root != null && root.isObject() ? Optional.of(root) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static String echo(String value) {
    return truncate(value, MAX_ECHOED_VALUE);
  }

  private static MalformedResponseException malformed(String what, String problem) {
    return new MalformedResponseException("Genace returned a malformed " + what + ": " + problem);
  }
}
