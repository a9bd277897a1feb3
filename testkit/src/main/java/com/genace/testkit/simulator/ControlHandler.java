package com.genace.testkit.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control endpoints under {@code /_sim}, for tests, drills and the demo. They need no API key
 * and are never subject to faults.
 *
 * <ul>
 *   <li>{@code GET /_sim/faults}, {@code POST /_sim/faults} (partial update, all or nothing)
 *   <li>{@code GET /_sim/stats}
 *   <li>{@code GET /_sim/jobs[?operation_id=X]}
 *   <li>{@code POST /_sim/reset}
 *   <li>{@code GET /_sim/artifacts/{jobId}/{index}}: the output URLs of succeeded jobs
 * </ul>
 */
final class ControlHandler implements HttpHandler {

  static final String ARTIFACTS_PREFIX = "/_sim/artifacts/";

  private static final Logger log = LoggerFactory.getLogger(ControlHandler.class);

  private final SimulatorState state;

  ControlHandler(SimulatorState state) {
    this.state = state;
  }

  @Override
  public void handle(HttpExchange exchange) {
    Exchanges.answer(exchange, this::route);
  }

  private void route(HttpExchange exchange) throws IOException {
    String route = exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath();
    switch (route) {
      case "GET /_sim/faults" -> Exchanges.sendJson(exchange, 200, state.faults().toJson());
      case "POST /_sim/faults" -> patchFaults(exchange);
      case "GET /_sim/stats" -> Exchanges.sendJson(exchange, 200, state.stats().toJson());
      case "GET /_sim/jobs" -> jobs(exchange);
      case "POST /_sim/reset" -> {
        state.reset();
        Exchanges.send(exchange, 204, new byte[0]);
      }
      default -> {
        if (route.startsWith("GET " + ARTIFACTS_PREFIX)) {
          artifact(exchange, route.substring(("GET " + ARTIFACTS_PREFIX).length()));
        } else {
          Exchanges.sendError(exchange, 404, "not_found", "no such route: " + route);
        }
      }
    }
  }

  private void patchFaults(HttpExchange exchange) throws IOException {
    Optional<JsonNode> patch = Exchanges.parseJson(Exchanges.readBody(exchange));
    if (patch.isEmpty() || !patch.get().isObject()) {
      Exchanges.sendError(exchange, 400, "invalid_json", "faults must be a JSON object");
      return;
    }
    Faults updated;
    try {
      updated = state.patchFaults(patch.get());
    } catch (IllegalArgumentException e) {
      Exchanges.sendError(exchange, 400, "invalid_faults", e.getMessage());
      return;
    }
    log.info("simulator faults now {}", updated);
    Exchanges.sendJson(exchange, 200, updated.toJson());
  }

  private void jobs(HttpExchange exchange) throws IOException {
    String operationId;
    try {
      operationId = Exchanges.query(exchange).get("operation_id");
    } catch (IllegalArgumentException badEscape) {
      Exchanges.sendError(exchange, 400, "invalid_query", "query string is not URL-encoded");
      return;
    }
    long now = System.nanoTime();
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    var jobs = body.putArray("jobs");
    for (SimulatedJob job : state.jobsFor(operationId)) {
      jobs.addObject()
          .put("id", job.id())
          .put("operation_id", job.operationId())
          .put("status", job.statusAt(now))
          .put("created_at", job.createdAt().toString());
    }
    Exchanges.sendJson(exchange, 200, body);
  }

  private void artifact(HttpExchange exchange, String rawRest) throws IOException {
    String[] parts = rawRest.split("/", -1);
    Optional<SimulatedJob> job = parts.length == 2 ? state.job(parts[0]) : Optional.empty();
    int index = parts.length == 2 ? parseIndex(parts[1]) : -1;
    if (job.isEmpty()
        || index < 0
        || index >= job.get().outputCount()
        || !job.get().statusAt(System.nanoTime()).equals("succeeded")) {
      Exchanges.sendError(exchange, 404, "not_found", "unknown artifact");
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", job.get().contentType());
    Exchanges.send(exchange, 200, job.get().artifact(index));
  }

  private static int parseIndex(String raw) {
    try {
      return Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
