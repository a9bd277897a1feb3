package com.genace.ops.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The embedded PostgreSQL for the benches: the same server as the demo's, with {@code
 * pg_stat_statements} loaded so that statements can be counted per operation. Utility statements
 * (the pool's {@code SET}s) are not tracked: they are not the ledger's work.
 */
final class BenchDatabase implements AutoCloseable {

  private final EmbeddedPostgres postgres;

  private BenchDatabase(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /**
   * @throws IllegalStateException when running as root, which PostgreSQL refuses
   */
  static BenchDatabase start() {
    if ("root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException(
          "the embedded PostgreSQL cannot run as root: run ./genace bench (it switches to an"
              + " unprivileged user), or point DATABASE_URL at a PostgreSQL server");
    }
    try {
      return new BenchDatabase(
          EmbeddedPostgres.builder()
              .setServerConfig("max_connections", "300")
              .setServerConfig("shared_preload_libraries", "pg_stat_statements")
              .setServerConfig("pg_stat_statements.track_utility", "off")
              .start());
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
    }
  }

  /** A {@code postgresql://} URL for the {@code postgres} database, as DATABASE_URL takes it. */
  String url() {
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
