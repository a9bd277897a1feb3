package com.genace.worker.health;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The worker's HTTP endpoints. Every answer is computed from memory, so probes stay fast and never
 * touch Genace or the database:
 *
 * <ul>
 *   <li>{@code /livez}: the process runs (never fails for an upstream problem);
 *   <li>{@code /readyz}: 200 while the worker may take some kind of work;
 *   <li>{@code /startupz}: 200 once startup checks passed;
 *   <li>{@code /status}: the status document (bearer token when configured);
 *   <li>{@code /metrics}: Prometheus text (bearer token when configured: the counts name accounts,
 *       models and spend);
 *   <li>{@code POST /admin/pause-dispatch}, {@code /admin/resume-dispatch}: this worker only,
 *       bearer token required.
 * </ul>
 */
public final class StatusServer implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final WorkerState state;
  private final Optional<String> token;

  public StatusServer(
      InetSocketAddress address,
      WorkerState state,
      Optional<String> token,
      Supplier<ObjectNode> status,
      WorkerMetrics metrics) {
    this.state = state;
    this.token = token;
    try {
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + address + " (GENACE_STATUS_ADDR)", e);
    }
    server.setExecutor(Executors.newFixedThreadPool(4, daemon()));
    server.createContext("/livez", get(ex -> send(ex, 200, json("process", "alive"))));
    server.createContext(
        "/startupz",
        get(
            ex ->
                send(
                    ex,
                    state.started() ? 200 : 503,
                    json("started", state.started())
                        .put("reason", state.startupProblem().orElse("started")))));
    server.createContext(
        "/readyz",
        get(
            ex -> {
              Readiness readiness = state.readiness();
              send(ex, readiness.acceptingAny() ? 200 : 503, document(readiness));
            }));
    server.createContext(
        "/status",
        get(
            ex -> {
              if (authorized(ex, false)) {
                send(ex, 200, status.get());
              }
            }));
    server.createContext(
        "/metrics",
        get(
            ex -> {
              if (!authorized(ex, false)) {
                return;
              }
              byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
              ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
              ex.sendResponseHeaders(200, body.length);
              ex.getResponseBody().write(body);
              ex.close();
            }));
    server.createContext(
        "/admin/pause-dispatch",
        post(
            ex -> {
              if (authorized(ex, true)) {
                state.pauseLocally("admin endpoint", query(ex, "reason").orElse("paused"));
                send(ex, 200, document(state.readiness()));
              }
            }));
    server.createContext(
        "/admin/resume-dispatch",
        post(
            ex -> {
              if (authorized(ex, true)) {
                state.resumeLocally();
                send(ex, 200, document(state.readiness()));
              }
            }));
  }

  public void start() {
    server.start();
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  @FunctionalInterface
  private interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  private static com.sun.net.httpserver.HttpHandler get(Handler handler) {
    return method("GET", handler);
  }

  private static com.sun.net.httpserver.HttpHandler post(Handler handler) {
    return method("POST", handler);
  }

  private static com.sun.net.httpserver.HttpHandler method(String method, Handler handler) {
    return exchange -> {
      try (exchange) {
        if (!method.equals(exchange.getRequestMethod())) {
          send(exchange, 405, json("error", "use " + method));
          return;
        }
        handler.handle(exchange);
      }
    };
  }

  /** Checks the bearer token; answers 401/403 itself when it does not match. */
  private boolean authorized(HttpExchange exchange, boolean required) throws IOException {
    if (token.isEmpty()) {
      if (required) {
        send(exchange, 403, json("error", "admin endpoints need GENACE_STATUS_TOKEN to be set"));
        return false;
      }
      return true;
    }
    if (!BearerToken.matches(exchange.getRequestHeaders().getFirst("Authorization"), token.get())) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      send(exchange, 401, json("error", "missing or wrong bearer token"));
      return false;
    }
    return true;
  }

  private static Optional<String> query(HttpExchange exchange, String name) {
    String query = exchange.getRequestURI().getRawQuery();
    if (query == null) {
      return Optional.empty();
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals(name)) {
        return Optional.of(URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return Optional.empty();
  }

  /** Readiness in the status document's words. */
  private static ObjectNode document(Readiness readiness) {
    return JSON.createObjectNode()
        .put("accepting_dispatch", readiness.acceptingDispatch())
        .put("accepting_observation", readiness.acceptingObservation())
        .put("reason", readiness.reason());
  }

  private static ObjectNode json(String field, String value) {
    return JSON.createObjectNode().put(field, value);
  }

  private static ObjectNode json(String field, boolean value) {
    return JSON.createObjectNode().put(field, value);
  }

  private static void send(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static java.util.concurrent.ThreadFactory daemon() {
    return runnable -> {
      Thread thread = new Thread(runnable, "genace-status");
      thread.setDaemon(true);
      return thread;
    };
  }
}
