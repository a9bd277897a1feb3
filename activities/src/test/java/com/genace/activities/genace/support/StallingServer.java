package com.genace.activities.genace.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A loopback HTTP/1.1 peer that answers with a status line, headers and the start of a body, and
 * then misbehaves as a half-open connection would: it {@linkplain Body#STALL sends nothing more} or
 * {@linkplain Body#TRICKLE one byte a second}, for as long as the client keeps the connection. It
 * notices when the client gives the connection up, which is how a test sees that the client let go
 * of it rather than leaking it.
 */
public final class StallingServer implements AutoCloseable {

  /** What follows the headers and the first bytes of the body. */
  public enum Body {
    STALL,
    TRICKLE
  }

  /** Announced, and never reached. */
  private static final int CONTENT_LENGTH = 4096;

  private final ServerSocket server;
  private final Body body;
  private final String contentType;
  private final String firstBytes;
  private final List<String> requestLines = new CopyOnWriteArrayList<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final CountDownLatch clientGone = new CountDownLatch(1);
  private final Thread acceptor;
  private volatile boolean closed;

  private StallingServer(Body body, String contentType, String firstBytes) {
    this.body = body;
    this.contentType = contentType;
    this.firstBytes = firstBytes;
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    acceptor = new Thread(this::accept, "stalling-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Answers 200 (201 to a POST) with a JSON body that never completes. */
  public static StallingServer json(Body body) {
    return new StallingServer(body, "application/json", "{\"id\":\"gen_1\",");
  }

  /** Answers 200 with an artifact body that never completes. */
  public static StallingServer artifact(Body body) {
    return new StallingServer(body, "application/octet-stream", "PNG!");
  }

  public URI baseUrl() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  public static int announcedBytes() {
    return CONTENT_LENGTH;
  }

  /** The request lines received, e.g. {@code POST /v1/generations HTTP/1.1}. */
  public List<String> requestLines() {
    return List.copyOf(requestLines);
  }

  /** Whether the client closed (or reset) a connection this server was holding. */
  public boolean awaitClientGone(long seconds) throws InterruptedException {
    return clientGone.await(seconds, TimeUnit.SECONDS);
  }

  private void accept() {
    while (!closed) {
      try {
        Socket socket = server.accept();
        sockets.add(socket);
        Thread handler = new Thread(() -> serve(socket), "stalling-server-connection");
        handler.setDaemon(true);
        handler.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      InputStream in = socket.getInputStream();
      String head = readHead(in);
      String requestLine = head.lines().findFirst().orElse("");
      requestLines.add(requestLine);
      in.readNBytes(contentLength(head));
      int status = requestLine.startsWith("POST") ? 201 : 200;
      OutputStream out = socket.getOutputStream();
      out.write(
          ("HTTP/1.1 "
                  + status
                  + " OK\r\nContent-Type: "
                  + contentType
                  + "\r\nContent-Length: "
                  + CONTENT_LENGTH
                  + "\r\n\r\n"
                  + firstBytes)
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      if (body == Body.STALL) {
        // Nothing more is sent; the read returns when the client closes the connection.
        while (in.read() != -1) {
          // a client sends nothing more on this connection
        }
      } else {
        for (int i = firstBytes.length(); i < CONTENT_LENGTH && !closed; i++) {
          out.write(' ');
          out.flush();
          Thread.sleep(1000);
        }
      }
      if (!closed) {
        clientGone.countDown();
      }
    } catch (IOException e) {
      if (!closed) {
        clientGone.countDown(); // reset by the client, or a write after it closed
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < end.length) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed before the request's headers ended");
      }
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }

  private static int contentLength(String head) {
    return head.lines()
        .filter(line -> line.toLowerCase(Locale.ROOT).startsWith("content-length:"))
        .map(line -> Integer.parseInt(line.substring(line.indexOf(':') + 1).trim()))
        .findFirst()
        .orElse(0);
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
