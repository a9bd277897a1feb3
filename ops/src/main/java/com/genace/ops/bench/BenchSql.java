package com.genace.ops.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The benches' own statements on the ledger they measure: figures read back and setup (seeding,
 * clean-up). Never the worker's statements, which the benches run through the ledger's code. Every
 * text is the bench's own, never from input.
 */
final class BenchSql {

  private BenchSql() {}

  /** The first column of the first row, as text. */
  static String text(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException("bench query failed: " + e.getMessage(), e);
    }
  }

  /** The first column of the first row, a count. */
  static long count(DataSource dataSource, String sql) {
    return Long.parseLong(text(dataSource, sql));
  }

  /** A setup statement, in a transaction of its own, without the pool's statement timeout. */
  static void execute(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection()) {
      // The pool's 10 s statement timeout is for the ledger; seeding may take longer. SET LOCAL
      // keeps the pooled connection's own setting.
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET LOCAL statement_timeout = 0");
        statement.execute(sql);
      }
      connection.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("bench setup failed: " + e.getMessage(), e);
    }
  }

  /**
   * {@code VACUUM (ANALYZE)} of {@code tables}, so that a timing reads settled tables with fresh
   * statistics rather than the dead rows and the guesses of a phase just before it.
   */
  static void vacuumAnalyze(DataSource dataSource, String... tables) {
    autocommit(dataSource, "VACUUM (ANALYZE) " + String.join(", ", tables));
  }

  /** A statement that cannot run in a transaction block (VACUUM, CREATE DATABASE). */
  static void autocommit(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("bench setup failed: " + e.getMessage(), e);
    }
  }
}
