package com.genace.ops.temporal;

import com.genace.client.connection.TemporalSettings;
import com.genace.worker.temporal.SearchAttributes;
import com.genace.worker.temporal.TemporalConnection;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Temporal Java test server, in this process, listening on 127.0.0.1 in real time (no time
 * skipping), with the workflow's search attributes registered on namespace {@code default}.
 *
 * <p>{@code TestServer.createPortBoundServer} binds every interface and does not tell which port it
 * got; this does the same with the loopback address and an ephemeral port allowed.
 *
 * <p>Limits of the test server: everything is in memory and lost on exit, there is no Web UI, and
 * it never times out a sticky queue whose worker went away (a real server falls back to the normal
 * queue after 5 s).
 */
public final class LocalTemporalServer implements AutoCloseable {

  public static final String NAMESPACE = "default";

  private final TestServicesStarter services;
  private final Server server;

  private LocalTemporalServer(TestServicesStarter services, Server server) {
    this.services = services;
    this.server = server;
  }

  /**
   * Starts serving on 127.0.0.1.
   *
   * @param port the port, or 0 for a free one
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static LocalTemporalServer start(int port) {
    // true: time skipping locked, so timers fire in real time as on a real server.
    TestServicesStarter services = new TestServicesStarter(true, 0);
    ServerBuilder<?> builder =
        NettyServerBuilder.forAddress(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
            InsecureServerCredentials.create());
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    Server server;
    try {
      server = builder.build().start();
    } catch (IOException e) {
      services.close();
      throw new UncheckedIOException(
          "could not start the Temporal test server on 127.0.0.1:" + port, e);
    }
    LocalTemporalServer local = new LocalTemporalServer(services, server);
    try (TemporalConnection connection = local.connect()) {
      SearchAttributes.register(connection.stubs(), NAMESPACE);
    } catch (RuntimeException e) {
      local.close();
      throw e;
    }
    return local;
  }

  public int port() {
    return server.getPort();
  }

  /** {@code 127.0.0.1:<port>}, as {@code TEMPORAL_ADDRESS} takes it. */
  public String address() {
    return "127.0.0.1:" + port();
  }

  /** A new client connection to this server. */
  public TemporalConnection connect() {
    return TemporalConnection.open(TemporalSettings.local(address()));
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    services.close();
  }
}
