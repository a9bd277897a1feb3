package com.genace.ops.bench;

import com.genace.testkit.EmbeddedDatabase;
import java.util.Map;

/**
 * The embedded PostgreSQL for the benches: the same server as the demo's (as root, run by an
 * unprivileged user), with {@code pg_stat_statements} loaded so that statements can be counted per
 * operation. Utility statements (the pool's {@code SET}s) are not tracked: they are not the
 * ledger's work.
 */
final class BenchDatabase implements AutoCloseable {

  private final EmbeddedDatabase postgres;

  private BenchDatabase(EmbeddedDatabase postgres) {
    this.postgres = postgres;
  }

  static BenchDatabase start() {
    return new BenchDatabase(
        EmbeddedDatabase.start(
            0,
            Map.of(
                "max_connections", "300",
                "shared_preload_libraries", "pg_stat_statements",
                "pg_stat_statements.track_utility", "off")));
  }

  /** A {@code postgresql://} URL for the {@code postgres} database, as DATABASE_URL takes it. */
  String url() {
    return postgres.url();
  }

  @Override
  public void close() {
    postgres.close();
  }
}
