package com.genace.ops.faults.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP front of the simulator that passes every request on, except that it replaces the body of
 * the next N successful answers with malformed JSON: after the simulator has acted (a POST's job
 * exists), which is what a garbled 2xx from Genace leaves a worker with.
 */
public final class MalformingFront implements AutoCloseable {

  public static final String MALFORMED_BODY = "{\"id\": \"gen_";

  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "content-length", "host", "transfer-encoding", "upgrade", "expect");

  private final HttpServer server;
  private final URI target;
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final AtomicInteger malformPosts = new AtomicInteger();
  private final AtomicInteger malformGets = new AtomicInteger();

  public MalformingFront(URI target) throws IOException {
    this.target = target;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext("/", this::forward);
    server.setExecutor(Executors.newFixedThreadPool(16));
    server.start();
  }

  public URI baseUrl() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Garbles the next {@code posts} successful creates and {@code gets} successful job reads. */
  public void malformNext(int posts, int gets) {
    malformPosts.set(posts);
    malformGets.set(gets);
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().toString();
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpRequest.Builder request =
          HttpRequest.newBuilder(target.resolve(path))
              .timeout(Duration.ofSeconds(30))
              .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      exchange
          .getRequestHeaders()
          .forEach(
              (name, values) -> {
                if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                  values.forEach(value -> request.header(name, value));
                }
              });
      HttpResponse<byte[]> response;
      try {
        response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
      byte[] answer = response.body();
      if (response.statusCode() / 100 == 2 && takeOne(exchange.getRequestMethod(), path)) {
        answer = MALFORMED_BODY.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      }
      response
          .headers()
          .map()
          .forEach(
              (name, values) -> {
                if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT))
                    && !name.startsWith(":")) {
                  exchange.getResponseHeaders().put(name, List.copyOf(values));
                }
              });
      exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    }
  }

  private boolean takeOne(String method, String path) {
    if (method.equals("POST") && path.startsWith("/v1/generations")) {
      return malformPosts.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }
    if (method.equals("GET") && path.startsWith("/v1/generations/")) {
      return malformGets.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }
    return false;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
