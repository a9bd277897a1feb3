package com.genace.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/** The connection pool and the schema migrations. */
public final class Database implements AutoCloseable {

  private final HikariDataSource dataSource;
  private final DatabaseUrl url;

  private Database(HikariDataSource dataSource, DatabaseUrl url) {
    this.dataSource = dataSource;
    this.url = url;
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
    return new Database(new HikariDataSource(hikari), config.url());
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Applies the versioned schema migrations on connections of their own ({@link Migrations});
   * returns how many were applied now.
   *
   * @throws MigrationException naming the script that could not be applied and why
   */
  public int migrate() {
    return Migrations.of(url).apply();
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
