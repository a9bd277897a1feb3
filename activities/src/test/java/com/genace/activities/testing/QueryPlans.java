package com.genace.activities.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** PostgreSQL's plan for a statement, and bulk rows to make the plan honest. */
public final class QueryPlans {

  private QueryPlans() {}

  @FunctionalInterface
  public interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  /** The plan's lines, from {@code EXPLAIN} (the statement is planned, not run). */
  public static List<String> explain(DataSource db, String sql, Binder binder) {
    try (Connection connection = db.getConnection();
        PreparedStatement statement = connection.prepareStatement("EXPLAIN " + sql)) {
      binder.bind(statement);
      List<String> lines = new ArrayList<>();
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          lines.add(rs.getString(1));
        }
      }
      return lines;
    } catch (SQLException e) {
      throw new IllegalStateException("could not explain: " + e.getMessage(), e);
    }
  }

  /** Runs statements (bulk inserts, ANALYZE) outside any test transaction. */
  public static void execute(DataSource db, String... sql) {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        statement.execute(each);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
