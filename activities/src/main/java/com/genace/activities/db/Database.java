package com.genace.activities.db;

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
    hikari.setConnectionInitSql(sessionSettings(config));
    hikari.addDataSourceProperty("connectTimeout", (int) config.connectTimeout().toSeconds());
    hikari.addDataSourceProperty(
        "socketTimeout", (int) config.statementTimeout().plusSeconds(5).toSeconds());
    hikari.addDataSourceProperty("tcpKeepAlive", true);
    return new Database(new HikariDataSource(hikari), config.url());
  }

  /**
   * What every pooled connection sets for its session.
   *
   * <ul>
   *   <li>Bounded waits: contention must fail fast, never hang a worker.
   *   <li>{@code enable_seqscan = off}: the planner takes an index wherever one serves, whatever
   *       its statistics say. Every statement reaches its rows through an index
   *       (ScanFreeStatementsTest, KeyedStatementPlansTest), but on a new or just emptied table the
   *       statistics say a few rows, a sequential scan is the cheaper plan, and a server-prepared
   *       statement keeps that plan on its connection (its generic plan, made after a few runs)
   *       until autovacuum next analyzes the table: up to a minute later, when a burst has made it
   *       thousands of rows, each write ten times slower by then (EmptyLedgerPlansTest, {@code
   *       bench first-minute}). A statement that no index serves still scans; this only stops the
   *       planner preferring a scan. Migrations run on sessions of their own ({@link Migrations}),
   *       with the defaults.
   * </ul>
   */
  static String sessionSettings(DatabaseConfig config) {
    return "SET lock_timeout = "
        + config.lockTimeout().toMillis()
        + "; SET statement_timeout = "
        + config.statementTimeout().toMillis()
        + "; SET enable_seqscan = off";
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
