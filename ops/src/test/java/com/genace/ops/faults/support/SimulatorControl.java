package com.genace.ops.faults.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulator's control endpoints as a drill uses them, over HTTP: {@code /_sim/stats}, {@code
 * /_sim/jobs} (what an operator would look up on Genace's side) and {@code /_sim/faults}.
 */
public final class SimulatorControl {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final URI base;

  public SimulatorControl(URI base) {
    this.base = base;
  }

  /** {@code posts_by_operation}: every POST the simulator received, per operation id. */
  public Map<String, Long> postsByOperation() {
    Map<String, Long> posts = new HashMap<>();
    get("/_sim/stats")
        .get("posts_by_operation")
        .properties()
        .forEach(e -> posts.put(e.getKey(), e.getValue().asLong()));
    return posts;
  }

  /** The ids of the jobs created for an operation, newest first. */
  public List<String> jobsFor(String operationId) {
    List<String> ids = new ArrayList<>();
    get("/_sim/jobs?operation_id=" + URLEncoder.encode(operationId, StandardCharsets.UTF_8))
        .get("jobs")
        .forEach(job -> ids.add(job.get("id").asText()));
    return ids;
  }

  /** {@code POST /_sim/faults}: a partial update, as JSON. */
  public void faults(String json) {
    send(
        HttpRequest.newBuilder(base.resolve("/_sim/faults"))
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  private JsonNode get(String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET());
  }

  private JsonNode send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              request.timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            request.build().uri() + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
