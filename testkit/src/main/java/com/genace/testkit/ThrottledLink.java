package com.genace.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy to {@code target} whose uplink (from the client to the target) carries at
 * most a given number of bytes a second, as a slow link to a storage service would; the downlink is
 * not slowed. Small socket buffers keep the client's writes close to what actually passed, so a
 * client that sends a large body sees it leave at the link's pace.
 */
public final class ThrottledLink implements AutoCloseable {

  /** Bytes passed at a time: a 16th of a second at 256 KiB/s. */
  private static final int CHUNK = 16 * 1024;

  /** The buffers on either side of the link: small, so that little waits in them. */
  private static final int BUFFER = 32 * 1024;

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final long bytesPerSecond;
  private final long stallAfter;
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  /**
   * @param bytesPerSecond the uplink's pace, at least {@value #CHUNK}
   */
  public static ThrottledLink throttled(InetSocketAddress target, long bytesPerSecond)
      throws IOException {
    if (bytesPerSecond < CHUNK) {
      throw new IllegalArgumentException("bytesPerSecond must be at least " + CHUNK);
    }
    return new ThrottledLink(target, bytesPerSecond, Long.MAX_VALUE);
  }

  /**
   * Each connection's uplink passes its first {@code bytes} (give or take a chunk), then stops
   * reading until the link closes: the client's writes block once the buffers are full.
   */
  public static ThrottledLink stallingAfter(InetSocketAddress target, long bytes)
      throws IOException {
    return new ThrottledLink(target, 0, bytes);
  }

  private ThrottledLink(InetSocketAddress target, long bytesPerSecond, long stallAfter)
      throws IOException {
    this.target = target;
    this.bytesPerSecond = bytesPerSecond;
    this.stallAfter = stallAfter;
    this.server = new ServerSocket();
    server.setReceiveBufferSize(BUFFER);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    daemon("throttled-link-" + target.getPort(), this::accept);
  }

  public int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket target = new Socket();
        target.setSendBufferSize(BUFFER);
        target.connect(this.target);
        open.add(client);
        open.add(target);
        daemon("throttled-link-up", () -> pump(client, target, bytesPerSecond, stallAfter));
        daemon("throttled-link-down", () -> pump(target, client, 0, Long.MAX_VALUE));
      } catch (IOException e) {
        if (server.isClosed()) {
          return;
        }
      }
    }
  }

  /**
   * Copies {@code from} to {@code to}, at most {@code pace} bytes a second (0: as fast as it can),
   * and stops reading once {@code stallAfter} bytes passed.
   */
  private void pump(Socket from, Socket to, long pace, long stallAfter) {
    byte[] buffer = new byte[CHUNK];
    long started = System.nanoTime();
    long passed = 0;
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
        out.flush();
        passed += n;
        while (passed >= stallAfter && !server.isClosed()) {
          Thread.sleep(50);
        }
        if (pace > 0) {
          long now = System.nanoTime();
          long wait = started + passed * 1_000_000_000L / pace - now;
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          } else {
            // An idle link saves no credit: the pace counts from now.
            started = now - passed * 1_000_000_000L / pace;
          }
        }
      }
      to.shutdownOutput();
    } catch (IOException e) {
      // one side closed: the other follows
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  @Override
  public void close() {
    closeQuietly(server);
    open.forEach(ThrottledLink::closeQuietly);
  }

  private static void daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // closing anyway
    }
  }
}
