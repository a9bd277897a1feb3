package com.genace.testkit.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated Genace API under {@code /v1}. Every request first waits {@code latency_ms}, is then
 * counted, then checked for authentication (and refused by {@code refuse_status} 401 or 403 at
 * {@code refuse_rate}), then may be answered 429 or 503 by the fault rates (creating nothing), and
 * only then handled. A create is then validated (400, 422) and refused by {@code refuse_status} 402
 * at {@code refuse_rate}: an empty balance refuses what costs credits, never a read.
 *
 * <p>Refusals carry {@code {"error": {"code", "message"}}}. A 403 about the account has the code
 * {@value #ACCOUNT_FORBIDDEN}; Genace's request-specific 403s name the request instead ({@code
 * model_forbidden}, {@code input_forbidden}), which the simulator never sends.
 */
final class ApiHandler implements HttpHandler {

  static final String CREATE_PATH = "/v1/generations";
  static final String MODELS_PATH = "/v1/models";

  /** The models it renders; a create for any other is refused with 422 {@code invalid_request}. */
  static final List<String> MODELS = List.of("image-v1", "video-v1");

  static final String ACCOUNT_FORBIDDEN = "account_forbidden";

  private static final Logger log = LoggerFactory.getLogger(ApiHandler.class);

  private final SimulatorState state;
  private final String baseUrl;

  ApiHandler(SimulatorState state, String baseUrl) {
    this.state = state;
    this.baseUrl = baseUrl;
  }

  @Override
  public void handle(HttpExchange exchange) {
    Exchanges.answer(
        exchange,
        ex -> {
          Thread.sleep(state.faults().latencyMs());
          route(ex);
        });
  }

  private void route(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    if (path.equals(CREATE_PATH) && method.equals("GET") && state.faults().searchEnabled()) {
      state.countGet();
      if (admitted(exchange)) {
        search(exchange);
      }
    } else if (path.equals(CREATE_PATH) && method.equals("GET")) {
      Exchanges.sendError(exchange, 404, "not_found", "no such route: GET " + path);
    } else if (path.equals(CREATE_PATH)) {
      if (requireMethod(exchange, "POST")) {
        create(exchange);
      }
    } else if (path.startsWith(CREATE_PATH + "/")
        && path.indexOf('/', CREATE_PATH.length() + 1) < 0) {
      if (requireMethod(exchange, "GET")) {
        state.countGet();
        if (admitted(exchange)) {
          snapshot(exchange, path.substring(CREATE_PATH.length() + 1));
        }
      }
    } else if (path.equals(MODELS_PATH)) {
      if (requireMethod(exchange, "GET") && admitted(exchange)) {
        models(exchange);
      }
    } else {
      Exchanges.sendError(exchange, 404, "not_found", "no such route: " + method + " " + path);
    }
  }

  private void create(HttpExchange exchange) throws IOException {
    byte[] body = Exchanges.readBody(exchange);
    Optional<JsonNode> json = Exchanges.parseJson(body);
    // Counted before anything can refuse it: duplicates are what tests look for.
    state.countPost(json.map(ApiHandler::operationId).orElse(null));
    // A create due to lose its response is not also drawn for a random 429 or 503: "the next N
    // creates" means those N, so that a script of lost responses (the demo's) happens as written.
    if (!admitted(exchange, !state.lostResponsePending(), json.map(ApiHandler::operationId))) {
      return;
    }
    if (json.isEmpty() || !json.get().isObject()) {
      Exchanges.sendError(exchange, 400, "invalid_json", "request body is not a JSON object");
      return;
    }
    Optional<String> invalid = invalidField(json.get());
    if (invalid.isPresent()) {
      Exchanges.sendError(exchange, 422, "invalid_request", invalid.get());
      return;
    }
    if (refused(402)) {
      Exchanges.sendError(
          exchange, 402, "insufficient_credits", "the account's credit balance is empty");
      return;
    }
    SimulatedJob job = state.create(operationId(json.get()), json.get().get("model").asText());
    if (state.takeLostResponse()) {
      state.countLostResponse();
      log.info(
          "simulator created {} for operation {} and drops the response",
          job.id(),
          job.operationId());
      // Closing before any response header is sent makes the server close the connection: the
      // client sees the connection end with no response at all.
      exchange.close();
      return;
    }
    ObjectNode created = JsonNodeFactory.instance.objectNode();
    created.put("id", job.id());
    created.put("status", "queued");
    exchange.getResponseHeaders().set("Location", CREATE_PATH + "/" + job.id());
    Exchanges.sendJson(exchange, 201, created);
  }

  private void snapshot(HttpExchange exchange, String rawId) throws IOException {
    Optional<SimulatedJob> job;
    try {
      job = state.job(Exchanges.decodePathSegment(rawId));
    } catch (IllegalArgumentException badEscape) {
      job = Optional.empty();
    }
    if (job.isEmpty()) {
      Exchanges.sendError(exchange, 404, "not_found", "unknown generation id");
      return;
    }
    Exchanges.sendJson(exchange, 200, job.get().snapshot(System.nanoTime(), baseUrl));
  }

  /**
   * The optional search: the jobs carrying {@code operation_id}, newest first, each listed only
   * {@code search_lag_ms} after its creation.
   */
  private void search(HttpExchange exchange) throws IOException {
    Optional<String> operationId;
    try {
      operationId = Optional.ofNullable(Exchanges.query(exchange).get("operation_id"));
    } catch (IllegalArgumentException badEscape) {
      Exchanges.sendError(exchange, 400, "invalid_query", "query string is not URL-encoded");
      return;
    }
    if (operationId.isEmpty() || operationId.get().isBlank()) {
      Exchanges.sendError(
          exchange, 400, "invalid_request", "query parameter 'operation_id' is required");
      return;
    }
    long now = System.nanoTime();
    long lagNanos = state.faults().searchLagMs() * 1_000_000L;
    List<SimulatedJob> listed =
        state.jobsFor(operationId.get()).stream()
            .filter(job -> now - job.createdNanos() >= lagNanos)
            .toList();
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("object", "list");
    var data = body.putArray("data");
    for (int i = listed.size() - 1; i >= 0; i--) {
      data.add(listed.get(i).snapshot(now, baseUrl));
    }
    Exchanges.sendJson(exchange, 200, body);
  }

  private void models(HttpExchange exchange) throws IOException {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("object", "list");
    var data = body.putArray("data");
    MODELS.forEach(id -> data.addObject().put("id", id).put("object", "model"));
    Exchanges.sendJson(exchange, 200, body);
  }

  /** Applies authentication and the 429/503 fault rates; false if the request was answered. */
  private boolean admitted(HttpExchange exchange) throws IOException {
    return admitted(exchange, true, Optional.empty());
  }

  /**
   * As {@link #admitted(HttpExchange)}, drawing the 429/503 rates only with {@code randomFaults},
   * and the 429 rate only for a create of {@code operationId} when {@code rate_429_prefix} is set.
   */
  private boolean admitted(
      HttpExchange exchange, boolean randomFaults, Optional<String> operationId)
      throws IOException {
    if (!state.isAuthorized(exchange.getRequestHeaders().getFirst("Authorization"))) {
      Exchanges.sendError(exchange, 401, "unauthorized", "missing or invalid API key");
      return false;
    }
    if (refused(401)) {
      Exchanges.sendError(exchange, 401, "unauthorized", "the API key was revoked");
      return false;
    }
    if (refused(403)) {
      Exchanges.sendError(exchange, 403, ACCOUNT_FORBIDDEN, "this account may not use the API");
      return false;
    }
    if (!randomFaults) {
      return true;
    }
    Faults faults = state.faults();
    boolean limited =
        faults.rate429Prefix().isEmpty()
            || operationId.filter(id -> id.startsWith(faults.rate429Prefix())).isPresent();
    if (limited && state.chance(faults.rate429())) {
      exchange.getResponseHeaders().set("Retry-After", Integer.toString(faults.retryAfterS()));
      Exchanges.sendError(exchange, 429, "rate_limited", "simulated rate limit");
      return false;
    }
    if (state.chance(faults.rate5xx())) {
      Exchanges.sendError(exchange, 503, "unavailable", "simulated outage");
      return false;
    }
    return true;
  }

  /** Whether {@code refuse_status} is this status and the {@code refuse_rate} draw says refuse. */
  private boolean refused(int status) {
    Faults faults = state.faults();
    return faults.refuseStatus() == status && state.chance(faults.refuseRate());
  }

  private static boolean requireMethod(HttpExchange exchange, String method) throws IOException {
    if (exchange.getRequestMethod().equals(method)) {
      return true;
    }
    exchange.getResponseHeaders().set("Allow", method);
    Exchanges.sendError(exchange, 405, "method_not_allowed", "use " + method);
    return false;
  }

  /** {@code metadata.operation_id} if it is a non-blank string, else null. */
  private static String operationId(JsonNode body) {
    JsonNode id = body.path("metadata").path("operation_id");
    return id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
  }

  private static Optional<String> invalidField(JsonNode body) {
    JsonNode model = body.get("model");
    if (model == null || !model.isTextual() || model.asText().isBlank()) {
      return Optional.of("field 'model' must be a non-blank string");
    }
    if (!MODELS.contains(model.asText())) {
      return Optional.of("unknown model '" + model.asText() + "' (known: " + MODELS + ")");
    }
    JsonNode input = body.get("input");
    if (input == null || !input.isObject()) {
      return Optional.of("field 'input' must be a JSON object");
    }
    JsonNode prompt = input.get("prompt");
    if (prompt != null && !prompt.isTextual()) {
      return Optional.of("field 'input.prompt' must be a string");
    }
    JsonNode metadata = body.get("metadata");
    if (metadata == null || !metadata.isObject()) {
      return Optional.of("field 'metadata' must be a JSON object");
    }
    if (operationId(body) == null) {
      return Optional.of("field 'metadata.operation_id' must be a non-blank string");
    }
    return Optional.empty();
  }
}
