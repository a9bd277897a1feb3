package com.genace.ops.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The Genace simulator's control endpoints over HTTP, the same whether the bench started it or
 * {@code GENACE_BASE_URL} names one: {@code POST /_sim/faults} and {@code GET /_sim/stats}.
 */
final class SimulatorControl {

  /** What the simulator has counted, as far as the benches need it. */
  record Counts(long posts, long gets) {
    Counts minus(Counts before) {
      return new Counts(posts - before.posts, gets - before.gets);
    }

    Counts plus(Counts other) {
      return new Counts(posts + other.posts, gets + other.gets);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final URI baseUrl;
  private final String apiKey;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  SimulatorControl(URI baseUrl, String apiKey) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
  }

  /**
   * Sets the given faults (the others keep their values).
   *
   * @throws IllegalStateException when the base URL is not a simulator: the benches never spend
   *     credits on a real Genace
   */
  void setFaults(String patchJson) {
    send(
        HttpRequest.newBuilder(baseUrl.resolve("/_sim/faults"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(patchJson)));
  }

  Counts counts() {
    JsonNode stats = send(HttpRequest.newBuilder(baseUrl.resolve("/_sim/stats")).GET());
    return new Counts(stats.path("posts_total").asLong(), stats.path("gets_total").asLong());
  }

  private JsonNode send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(
              request.timeout(TIMEOUT).header("Authorization", "Bearer " + apiKey).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw notASimulator("HTTP " + response.statusCode());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw notASimulator(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while talking to the simulator", e);
    }
  }

  private IllegalStateException notASimulator(String why) {
    return new IllegalStateException(
        "the benches need the Genace simulator (./genace simulator) at GENACE_BASE_URL, never a"
            + " real Genace; "
            + baseUrl
            + "/_sim answered: "
            + why);
  }
}
