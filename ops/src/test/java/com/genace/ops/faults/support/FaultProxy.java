package com.genace.ops.faults.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
 *
 * <p>Apart from the mode, one write can be caught on its way ({@link #holdWrite}): the connection
 * that carries it goes silent towards the target from that write on, the others pass, until the
 * drill lets it through. That is a request that left its sender and reaches the server late, after
 * the world has moved on; a frozen sender waits for the answer as long as it is frozen.
 */
public final class FaultProxy implements AutoCloseable {

  public static final int SLOW_DELAY_MS = 400;
  public static final int MAX_MARKER = 256;

  public enum Mode {
    PASS,
    CUT,
    HALF_OPEN,
    SLOW
  }

  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile Mode mode = Mode.PASS;
  private volatile byte[] trap;
  private volatile boolean holding;
  private volatile boolean letThrough;

  public FaultProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "fault-proxy-" + targetPort);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  public void mode(Mode mode) {
    this.mode = mode;
    if (mode == Mode.CUT) {
      open.forEach(FaultProxy::reset);
      open.clear();
    }
  }

  /**
   * Arms a one-shot trap: the first chunk sent towards the target that contains {@code marker} (in
   * UTF-8, at most {@value #MAX_MARKER} bytes; for PostgreSQL, a value the statement binds) is
   * held, with everything after it on that connection, until {@link #letThrough}.
   */
  public void holdWrite(String marker) {
    byte[] bytes = marker.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_MARKER) {
      throw new IllegalArgumentException("a marker of at most " + MAX_MARKER + " bytes");
    }
    trap = bytes;
  }

  /** Whether the trapped write is held now. */
  public boolean holding() {
    return holding;
  }

  /** Lets the held write, and what followed it on its connection, reach the target. */
  public void letThrough() {
    letThrough = true;
    holding = false;
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
        pump(client, upstream, true);
        pump(upstream, client, false);
      } catch (IOException e) {
        // the proxy closed, or the target refused: the client sees its connection closed
      }
    }
  }

  private void pump(Socket from, Socket to, boolean towardsTarget) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              // The end of the previous chunk, so that a marker split between two is still found.
              byte[] tail = new byte[0];
              boolean caught = false;
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  if (towardsTarget && !caught) {
                    byte[] marker = trap;
                    byte[] seen = concat(tail, buffer, read);
                    caught = marker != null && springs(marker, seen);
                    tail =
                        Arrays.copyOfRange(
                            seen, Math.max(0, seen.length - MAX_MARKER), seen.length);
                  }
                  while (caught && !letThrough) {
                    Thread.sleep(100);
                  }
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

  /** Whether this chunk carries the marker of a trap not sprung yet; if so the trap springs. */
  private synchronized boolean springs(byte[] marker, byte[] seen) {
    if (trap == null || holding || letThrough || indexOf(seen, marker) < 0) {
      return false;
    }
    holding = true;
    return true;
  }

  private static byte[] concat(byte[] head, byte[] buffer, int length) {
    byte[] all = Arrays.copyOf(head, head.length + length);
    System.arraycopy(buffer, 0, all, head.length, length);
    return all;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
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
    letThrough = true;
    mode(Mode.CUT);
    server.close();
  }
}
