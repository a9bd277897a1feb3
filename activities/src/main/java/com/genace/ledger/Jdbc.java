package com.genace.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** Runs one prepared statement per call on a pooled connection in autocommit mode. */
final class Jdbc {

  /** PostgreSQL's lock_not_available and query_canceled: the bounded waits ran out. */
  private static final List<String> CONTENTION_STATES = List.of("55P03", "57014");

  @FunctionalInterface
  interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  private final DataSource dataSource;

  Jdbc(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  <T> List<T> query(String sql, List<?> args, RowMapper<T> mapper) {
    try {
      return queryOrThrow(sql, args, mapper);
    } catch (SQLException e) {
      throw translate(e);
    }
  }

  /** Like {@link #query} but lets the caller decide what a failed statement means. */
  <T> List<T> queryOrThrow(String sql, List<?> args, RowMapper<T> mapper) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, args);
      try (ResultSet rs = statement.executeQuery()) {
        List<T> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
        return rows;
      }
    }
  }

  <T> Optional<T> queryOne(String sql, List<?> args, RowMapper<T> mapper) {
    List<T> rows = query(sql, args, mapper);
    if (rows.size() > 1) {
      throw new IllegalStateException("expected at most one row, got " + rows.size());
    }
    return rows.stream().findFirst();
  }

  int update(String sql, List<?> args) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, args);
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw translate(e);
    }
  }

  static LedgerException translate(SQLException e) {
    if (CONTENTION_STATES.contains(e.getSQLState())) {
      return new LedgerContentionException(
          "ledger statement gave up waiting (lock or statement timeout): " + e.getMessage(), e);
    }
    return new LedgerException("ledger statement failed: " + e.getMessage(), e);
  }

  static Optional<Instant> instant(ResultSet rs, String column) throws SQLException {
    return Optional.ofNullable(rs.getObject(column, OffsetDateTime.class))
        .map(OffsetDateTime::toInstant);
  }

  static Optional<String> text(ResultSet rs, String column) throws SQLException {
    return Optional.ofNullable(rs.getString(column));
  }

  private static void bind(PreparedStatement statement, List<?> args) throws SQLException {
    for (int i = 0; i < args.size(); i++) {
      Object arg = args.get(i);
      if (arg == null) {
        statement.setNull(i + 1, Types.VARCHAR);
      } else if (arg instanceof Long value) {
        statement.setLong(i + 1, value);
      } else if (arg instanceof Integer value) {
        statement.setInt(i + 1, value);
      } else if (arg instanceof String value) {
        statement.setString(i + 1, value);
      } else {
        throw new IllegalArgumentException("unsupported argument type " + arg.getClass());
      }
    }
  }
}
