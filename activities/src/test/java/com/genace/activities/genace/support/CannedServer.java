package com.genace.activities.genace.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A throwaway HTTP server for answers the simulator never gives (garbage bodies, odd statuses). It
 * answers every request with one canned response and records what it received.
 */
public final class CannedServer implements AutoCloseable {

  /** What one request carried. */
  public record Received(String method, String path, String authorization, String body) {}

  private final HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile int status;
  private volatile String body;
  private volatile String retryAfter;

  private CannedServer(int status, String body) {
    this.status = status;
    this.body = body;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::answer);
    server.start();
  }

  public static CannedServer answering(int status, String body) {
    return new CannedServer(status, body);
  }

  public CannedServer withRetryAfter(String value) {
    this.retryAfter = value;
    return this;
  }

  public URI baseUrl() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public List<Received> received() {
    return List.copyOf(received);
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      String requestBody =
          new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      received.add(
          new Received(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getRawPath(),
              exchange.getRequestHeaders().getFirst("Authorization"),
              requestBody));
      if (retryAfter != null) {
        exchange.getResponseHeaders().set("Retry-After", retryAfter);
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
