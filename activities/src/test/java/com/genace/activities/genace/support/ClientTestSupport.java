package com.genace.activities.genace.support;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import java.net.URI;
import java.time.Duration;

/** Shared fixtures for the client tests. */
public final class ClientTestSupport {

  /** Looks like a real key so that a leak would be easy to spot in any message. */
  public static final String API_KEY = "sk-test-4f9c2a71e0b34d55";

  private ClientTestSupport() {}

  public static HttpGenaceClient clientFor(URI baseUrl) {
    return clientFor(baseUrl, API_KEY, Duration.ofSeconds(5));
  }

  public static HttpGenaceClient clientFor(URI baseUrl, String apiKey, Duration readTimeout) {
    return new HttpGenaceClient(
        GenaceClientConfig.of(baseUrl, apiKey).withTimeouts(Duration.ofSeconds(2), readTimeout));
  }

  public static CreateRequest request(String operationId) {
    ObjectNode input = JsonNodeFactory.instance.objectNode().put("prompt", "a lighthouse at dusk");
    return new CreateRequest("image-v1", input, operationId);
  }
}
