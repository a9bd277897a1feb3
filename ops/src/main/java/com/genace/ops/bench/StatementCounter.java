package com.genace.ops.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Counts the statements the database ran, from {@code pg_stat_statements} when it is loaded (the
 * bench's embedded PostgreSQL loads it; exact and immediate), else from {@code
 * pg_stat_database.xact_commit} (each autocommit statement is one transaction; the figure lags by
 * up to a second or so, so the bench waits before reading it). The counter's own queries are left
 * out either way.
 */
final class StatementCounter {

  private static final String STATEMENTS =
      """
      SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT ILIKE '%pg_stat_%'
      """;

  private static final String BY_QUERY =
      """
      SELECT query, sum(calls) FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT ILIKE '%pg_stat_%'
      GROUP BY query
      """;

  private static final String TRANSACTIONS =
      "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()";

  private final DataSource dataSource;
  private final boolean statements;
  private long ownReads;

  private StatementCounter(DataSource dataSource, boolean statements) {
    this.dataSource = dataSource;
    this.statements = statements;
  }

  static StatementCounter open(DataSource dataSource) {
    return new StatementCounter(dataSource, loaded(dataSource));
  }

  /**
   * Whether {@code pg_stat_statements} can be read here, creating the extension where the server
   * loads it (the benches' embedded server does): false where it is not loaded, or not ours to
   * create.
   */
  static boolean loaded(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      statement.executeQuery(STATEMENTS).close();
      return true;
    } catch (SQLException notLoaded) {
      return false;
    }
  }

  /** {@code pg_stat_statements} or {@code xact_commit}. */
  String source() {
    return statements ? "pg_stat_statements" : "xact_commit";
  }

  /** The running total, less this counter's own reads. */
  long read() throws InterruptedException {
    if (!statements) {
      Thread.sleep(1500); // the statistics are flushed about once a second
    }
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(statements ? STATEMENTS : TRANSACTIONS)) {
      rs.next();
      long total = rs.getLong(1) - ownReads;
      ownReads++;
      return total;
    } catch (SQLException e) {
      throw new IllegalStateException("could not count statements: " + e.getMessage(), e);
    }
  }

  /**
   * The running total of each statement by its name ({@link StatementNames}); empty without {@code
   * pg_stat_statements}.
   */
  Map<String, Long> byName(StatementNames names) {
    Map<String, Long> calls = new HashMap<>();
    if (!statements) {
      return calls;
    }
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(BY_QUERY)) {
      while (rs.next()) {
        calls.merge(names.name(rs.getString(1)), rs.getLong(2), Long::sum);
      }
      return calls;
    } catch (SQLException e) {
      throw new IllegalStateException("could not count statements: " + e.getMessage(), e);
    }
  }
}
