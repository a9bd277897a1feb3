package com.genace.testkit.simulator.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Plain HTTP against the simulator, to test it without the Genace client in the way. */
public final class RawHttp {

  public static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();
  private final URI baseUrl;

  public RawHttp(URI baseUrl) {
    this.baseUrl = baseUrl;
  }

  public HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(baseUrl.resolve(path)).header("Authorization", "Bearer k"));
  }

  public HttpResponse<byte[]> getBytes(String url) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public HttpResponse<String> post(String path, String body) {
    return post(path, body, "Bearer k");
  }

  public HttpResponse<String> post(String path, String body, String authorization) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(baseUrl.resolve(path))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return send(request);
  }

  public static String createBody(String operationId) {
    return "{\"model\":\"image-v1\",\"input\":{\"prompt\":\"p\"},"
        + "\"metadata\":{\"operation_id\":\""
        + operationId
        + "\"}}";
  }

  public static JsonNode json(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
