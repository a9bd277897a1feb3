package com.genace.workflows.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.GenerationWorkflow;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The generation workflow's saved histories ({@code src/test/resources/histories}), recorded by the
 * worker module's end-to-end tests: replayed against the current code and held to the current
 * activity options.
 */
public final class SavedHistories {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SavedHistories() {}

  /** Every saved history, by file name. */
  public static List<Path> all() throws IOException, URISyntaxException {
    Path directory = Path.of(SavedHistories.class.getResource("/histories").toURI());
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(SavedHistories::isHistory).sorted().toList();
    }
  }

  /** A saved history's file: JSON, or JSON compressed. */
  public static boolean isHistory(Path file) {
    String name = file.getFileName().toString();
    return name.endsWith(".json") || name.endsWith(".json.gz");
  }

  /**
   * A saved history, under the workflow id its run had: {@code generation/<operationId>} of its
   * start input (the workflow refuses any other; a history read without one replays under
   * Temporal's placeholder id).
   */
  public static WorkflowExecutionHistory parse(Path history) throws IOException {
    String json = read(history);
    JsonNode started =
        JSON.readTree(json).path("events").path(0).path("workflowExecutionStartedEventAttributes");
    String data = started.path("input").path("payloads").path(0).path("data").asText("");
    String operationId =
        JSON.readTree(Base64.getDecoder().decode(data)).path("operationId").asText("");
    return WorkflowExecutionHistory.fromJson(json, GenerationWorkflow.workflowId(operationId));
  }

  /** A run that continued as new is saved compressed: it holds about 2,000 events. */
  public static String read(Path history) throws IOException {
    if (!history.toString().endsWith(".gz")) {
      return Files.readString(history);
    }
    try (InputStream in = new GZIPInputStream(Files.newInputStream(history))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
