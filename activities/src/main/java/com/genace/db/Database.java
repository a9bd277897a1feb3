package com.genace.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/** The connection pool and the schema migrations. */
public final class Database implements AutoCloseable {

  private final HikariDataSource dataSource;

  private Database(HikariDataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Opens a pool; connections are made lazily, so an unreachable server fails on first use. */
  public static Database open(DatabaseConfig config) {
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(config.url().jdbcUrl());
    config.url().user().ifPresent(hikari::setUsername);
    config.url().password().ifPresent(hikari::setPassword);
    hikari.setMaximumPoolSize(config.maxPoolSize());
    hikari.setMinimumIdle(0);
    hikari.setPoolName("genace-ledger");
    hikari.setConnectionTimeout(config.connectTimeout().toMillis());
    hikari.setInitializationFailTimeout(-1);
    // Bounded waits on every pooled connection: contention must fail fast, never hang a worker.
    hikari.setConnectionInitSql(
        "SET lock_timeout = "
            + config.lockTimeout().toMillis()
            + "; SET statement_timeout = "
            + config.statementTimeout().toMillis());
    hikari.addDataSourceProperty("connectTimeout", (int) config.connectTimeout().toSeconds());
    hikari.addDataSourceProperty(
        "socketTimeout", (int) config.statementTimeout().plusSeconds(5).toSeconds());
    hikari.addDataSourceProperty("tcpKeepAlive", true);
    return new Database(new HikariDataSource(hikari));
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** Applies the versioned schema migrations; returns how many were applied now. */
  public int migrate() {
    return migrate(dataSource);
  }

  /**
   * Applies the versioned schema migrations to any data source. Flyway holds a session-level
   * advisory lock rather than a transactional one: an index built {@code CONCURRENTLY} (outside a
   * transaction) waits for every older transaction to end, the lock's own included, and would wait
   * for ever.
   */
  public static int migrate(DataSource dataSource) {
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration")
        .configuration(Map.of("flyway.postgresql.transactional.lock", "false"))
        .load()
        .migrate()
        .migrationsExecuted;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
