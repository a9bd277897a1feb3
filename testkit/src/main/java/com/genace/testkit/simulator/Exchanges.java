package com.genace.testkit.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Small helpers shared by the simulator's handlers. */
final class Exchanges {

  private static final Logger log = LoggerFactory.getLogger(Exchanges.class);

  /** One request's handling; may wait (a latency fault) and so be interrupted. */
  @FunctionalInterface
  interface Route {
    void handle(HttpExchange exchange) throws IOException, InterruptedException;
  }

  /**
   * Answers one request and closes the exchange, whatever happens: the one place that decides what
   * a failed answer means for the simulator.
   */
  static void answer(HttpExchange exchange, Route route) {
    try (exchange) {
      route.handle(exchange);
    } catch (InterruptedException e) {
      // The simulator is closing: drop the request.
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // Usually the client gave up (read timeout) before the answer: normal under faults.
      log.debug(
          "simulator could not answer {} {}: {}",
          exchange.getRequestMethod(),
          exchange.getRequestURI().getRawPath(),
          e.toString());
    } catch (RuntimeException e) {
      log.warn(
          "simulator failed to answer {} {}",
          exchange.getRequestMethod(),
          exchange.getRequestURI().getRawPath(),
          e);
    }
  }

  static final ObjectMapper MAPPER = new ObjectMapper();

  private Exchanges() {}

  static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      return in.readAllBytes();
    }
  }

  /** The body as JSON, or empty if it is not JSON at all. */
  static Optional<JsonNode> parseJson(byte[] body) {
    try {
      return Optional.ofNullable(body.length == 0 ? null : MAPPER.readTree(body));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static void sendJson(HttpExchange exchange, int status, JsonNode body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    send(exchange, status, MAPPER.writeValueAsBytes(body));
  }

  static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** Answers {@code {"error": {"code": ..., "message": ...}}}, the shape Genace uses. */
  static void sendError(HttpExchange exchange, int status, String code, String message)
      throws IOException {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.putObject("error").put("code", code).put("message", message);
    sendJson(exchange, status, body);
  }

  static Map<String, String> query(HttpExchange exchange) {
    Map<String, String> params = new HashMap<>();
    String raw = exchange.getRequestURI().getRawQuery();
    if (raw == null) {
      return params;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      params.put(decode(name), decode(value));
    }
    return params;
  }

  /** Decodes a query component; '+' means space there. */
  static String decode(String raw) {
    return URLDecoder.decode(raw, StandardCharsets.UTF_8);
  }

  /** Decodes a path segment, where '+' is a literal plus. */
  static String decodePathSegment(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }
}
