package com.genace.ops.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy between a worker and one of its peers (Genace, PostgreSQL) whose link a
 * drill breaks on demand:
 *
 * <ul>
 *   <li>{@link Mode#CUT}: every connection is reset and new ones are refused (closed at once);
 *   <li>{@link Mode#HALF_OPEN}: connections stay open but nothing passes either way, as when the
 *       peer vanished without a FIN (only the caller's own timeouts end the wait);
 *   <li>{@link Mode#SLOW}: every chunk waits {@link #SLOW_DELAY_MS} before it is passed on.
 * </ul>
 */
final class FaultProxy implements AutoCloseable {

  static final int SLOW_DELAY_MS = 400;

  enum Mode {
    PASS,
    CUT,
    HALF_OPEN,
    SLOW
  }

  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile Mode mode = Mode.PASS;

  FaultProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "fault-proxy-" + targetPort);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  void mode(Mode mode) {
    this.mode = mode;
    if (mode == Mode.CUT) {
      open.forEach(FaultProxy::reset);
      open.clear();
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (mode == Mode.CUT) {
          reset(client);
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        // the proxy closed, or the target refused: the client sees its connection closed
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  Mode now = mode;
                  while (now == Mode.HALF_OPEN) {
                    // Held, not dropped: a TCP peer that comes back delivers what it had.
                    Thread.sleep(100);
                    now = mode;
                  }
                  if (now == Mode.SLOW) {
                    Thread.sleep(SLOW_DELAY_MS);
                  }
                  out.write(buffer, 0, read);
                  out.flush();
                }
              } catch (IOException e) {
                // one side closed or was reset
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                close(from);
                close(to);
              }
            },
            "fault-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  /** Closes with RST rather than FIN, as a cut link or a dead peer shows itself. */
  private static void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // closing is what matters
    }
    close(socket);
  }

  private static void close(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    mode(Mode.CUT);
    server.close();
  }
}
