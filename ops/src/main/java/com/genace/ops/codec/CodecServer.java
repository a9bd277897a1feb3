package com.genace.ops.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.connection.EncryptionCodec;
import com.genace.client.connection.PayloadKeys;
import com.genace.worker.health.BearerToken;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.payload.codec.PayloadCodecException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Temporal's remote codec protocol over the payload codec ({@link EncryptionCodec}): {@code POST
 * /encode} and {@code POST /decode} take and answer {@code {"payloads": [...]}} in protobuf's JSON
 * form, as the Web UI and {@code temporal --codec-endpoint} send them. Browsers are let in only
 * from the allowed origins (CORS); with a token, every call but the CORS preflight needs {@code
 * Authorization: Bearer TOKEN}. Nothing of a payload is ever logged.
 */
public final class CodecServer implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger log = LoggerFactory.getLogger(CodecServer.class);

  /** A request larger than this is refused: the Web UI sends one page of history at a time. */
  static final int MAX_REQUEST_BYTES = 16 * 1024 * 1024;

  private final HttpServer server;
  private final ExecutorService executor;
  private final EncryptionCodec codec;
  private final Set<String> allowedOrigins;
  private final Optional<String> token;

  private CodecServer(
      HttpServer server, PayloadKeys keys, Set<String> allowedOrigins, Optional<String> token) {
    this.server = server;
    this.codec = new EncryptionCodec(keys);
    this.allowedOrigins = Set.copyOf(allowedOrigins);
    this.token = token;
    this.executor = Executors.newFixedThreadPool(4);
    server.setExecutor(executor);
    server.createContext("/encode", exchange -> handle(exchange, codec::encode));
    server.createContext("/decode", exchange -> handle(exchange, codec::decode));
  }

  /**
   * Listens on {@code address}. Without a token it refuses any address but loopback: anyone who
   * reaches it could read every prompt.
   */
  public static CodecServer start(
      InetSocketAddress address,
      PayloadKeys keys,
      Set<String> allowedOrigins,
      Optional<String> token) {
    if (token.isEmpty() && !address.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "a codec server without "
              + CodecServerCommand.TOKEN_VARIABLE
              + " listens on loopback only, not on "
              + address.getHostString());
    }
    HttpServer server;
    try {
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + address + ": " + e.getMessage(), e);
    }
    CodecServer codecServer = new CodecServer(server, keys, allowedOrigins, token);
    server.start();
    return codecServer;
  }

  /** The endpoint to give the Web UI ({@code --ui-codec-endpoint}) and the CLI. */
  public String endpoint() {
    InetSocketAddress address = server.getAddress();
    return "http://" + address.getHostString() + ":" + address.getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange, Function<List<Payload>, List<Payload>> transform)
      throws IOException {
    try (exchange) {
      String origin = exchange.getRequestHeaders().getFirst("Origin");
      if (origin != null) {
        if (!allowedOrigins.contains(origin)) {
          send(exchange, 403, error("origin " + origin + " is not allowed (--allow-origin)"));
          return;
        }
        allowCors(exchange, origin);
      }
      String method = exchange.getRequestMethod();
      if ("OPTIONS".equals(method)) {
        // The browser's preflight carries no credentials: it only asks what is allowed.
        exchange.sendResponseHeaders(204, -1);
        return;
      }
      if (!"POST".equals(method)) {
        send(exchange, 405, error("use POST"));
        return;
      }
      if (!authorized(exchange)) {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        send(exchange, 401, error("missing or wrong bearer token"));
        return;
      }
      Payloads request;
      try {
        request = parse(exchange.getRequestBody());
      } catch (RequestTooLarge e) {
        send(exchange, 413, error("request over " + MAX_REQUEST_BYTES + " bytes"));
        return;
      } catch (InvalidProtocolBufferException e) {
        send(exchange, 400, error("the body is not {\"payloads\": [...]}: " + e.getMessage()));
        return;
      }
      List<Payload> result;
      try {
        result = transform.apply(request.getPayloadsList());
      } catch (PayloadCodecException e) {
        // The message names a key's id or a tampered payload, never a key or a payload's bytes.
        log.warn("codec request refused: {}", e.getMessage());
        send(exchange, 422, error(e.getMessage()));
        return;
      }
      send(exchange, 200, JsonFormat.printer().print(Payloads.newBuilder().addAllPayloads(result)));
    }
  }

  private void allowCors(HttpExchange exchange, String origin) {
    var headers = exchange.getResponseHeaders();
    headers.set("Access-Control-Allow-Origin", origin);
    headers.set("Access-Control-Allow-Methods", "POST, OPTIONS");
    headers.set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Namespace");
    headers.set("Access-Control-Allow-Credentials", "true");
    headers.set("Access-Control-Max-Age", "600");
    headers.set("Vary", "Origin");
  }

  private boolean authorized(HttpExchange exchange) {
    return token.isEmpty()
        || BearerToken.matches(exchange.getRequestHeaders().getFirst("Authorization"), token.get());
  }

  private static Payloads parse(InputStream body) throws IOException {
    byte[] bytes = body.readNBytes(MAX_REQUEST_BYTES + 1);
    if (bytes.length > MAX_REQUEST_BYTES) {
      throw new RequestTooLarge();
    }
    Payloads.Builder builder = Payloads.newBuilder();
    JsonFormat.parser()
        .ignoringUnknownFields()
        .merge(new String(bytes, StandardCharsets.UTF_8), builder);
    return builder.build();
  }

  private static String error(String message) {
    return JSON.createObjectNode().put("error", message).toString();
  }

  private static void send(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static final class RequestTooLarge extends IOException {}
}
