package com.genace.worker.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A loopback TCP proxy whose link can be cut and restored: a database outage on demand. */
public final class TcpProxy implements AutoCloseable {

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile boolean cut;

  public TcpProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "tcp-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Closes every connection and refuses new ones until {@link #restore()}. */
  public void cut() {
    cut = true;
    open.forEach(TcpProxy::closeQuietly);
    open.clear();
  }

  public void restore() {
    cut = false;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (cut) {
          closeQuietly(client);
          continue;
        }
        Socket upstream = new Socket(target.getAddress(), target.getPort());
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        // the server socket closed, or the target refused: the client sees a closed connection
      }
    }
  }

  /** Copies {@code from} to {@code to} on a thread of its own; closes both when either ends. */
  static void pump(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
              } catch (IOException e) {
                // one side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tcp-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    cut();
    server.close();
  }
}
