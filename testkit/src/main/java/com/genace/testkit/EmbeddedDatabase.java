package com.genace.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A real PostgreSQL server started from binaries shipped on the class path, for the demo, the dev
 * stack and the tests. Its data lives in a temporary directory removed on close. PostgreSQL refuses
 * to run as root, so as root the same binaries run as an unprivileged user ({@link
 * UnprivilegedPostgres}).
 */
public final class EmbeddedDatabase implements AutoCloseable {

  private final int port;
  private final AutoCloseable server;

  private EmbeddedDatabase(int port, AutoCloseable server) {
    this.port = port;
    this.server = server;
  }

  /**
   * Starts a server on the given port (0 picks a free one).
   *
   * @throws IllegalStateException when running as root and no unprivileged user can run it
   */
  public static EmbeddedDatabase start(int port) {
    return start(port, Map.of());
  }

  /**
   * Starts a server on the given port (0 picks a free one) with extra server settings, e.g. {@code
   * shared_preload_libraries}; {@code max_connections} is 200 unless given.
   *
   * @throws IllegalStateException when running as root and no unprivileged user can run it
   */
  public static EmbeddedDatabase start(int port, Map<String, String> settings) {
    Map<String, String> serverConfig = new LinkedHashMap<>();
    serverConfig.put("max_connections", "200");
    serverConfig.putAll(settings);
    if (UnprivilegedPostgres.runningAsRoot()) {
      UnprivilegedPostgres postgres = UnprivilegedPostgres.start(port, serverConfig);
      return new EmbeddedDatabase(postgres.port(), postgres);
    }
    try {
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
      if (port != 0) {
        builder.setPort(port);
      }
      serverConfig.forEach(builder::setServerConfig);
      EmbeddedPostgres postgres = builder.start();
      return new EmbeddedDatabase(postgres.getPort(), postgres);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
    }
  }

  public int port() {
    return port;
  }

  /** A {@code postgresql://} URL for the {@code postgres} database, with its user. */
  public String url() {
    return "postgresql://postgres@127.0.0.1:" + port + "/postgres";
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (Exception e) {
      throw new IllegalStateException("could not stop the embedded PostgreSQL", e);
    }
  }
}
