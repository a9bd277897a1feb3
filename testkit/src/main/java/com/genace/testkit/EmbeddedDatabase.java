package com.genace.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A real PostgreSQL server started from binaries shipped on the class path, for the demo, the dev
 * stack and the tests. Its data lives in a temporary directory removed on close.
 */
public final class EmbeddedDatabase implements AutoCloseable {

  private final EmbeddedPostgres postgres;

  private EmbeddedDatabase(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /**
   * Starts a server on the given port (0 picks a free one).
   *
   * @throws IllegalStateException when running as root, which PostgreSQL refuses
   */
  public static EmbeddedDatabase start(int port) {
    if ("root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException(
          "the embedded PostgreSQL cannot run as root (PostgreSQL refuses to): run as an"
              + " unprivileged user, or point DATABASE_URL at a PostgreSQL server");
    }
    try {
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
      if (port != 0) {
        builder.setPort(port);
      }
      builder.setServerConfig("max_connections", "200");
      return new EmbeddedDatabase(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
    }
  }

  public int port() {
    return postgres.getPort();
  }

  /** A {@code postgresql://} URL for the {@code postgres} database, with its user. */
  public String url() {
    return "postgresql://postgres@127.0.0.1:" + postgres.getPort() + "/postgres";
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop the embedded PostgreSQL", e);
    }
  }
}
