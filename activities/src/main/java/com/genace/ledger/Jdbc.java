package com.genace.ledger;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
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

/**
 * Runs one prepared statement per call on a pooled connection in autocommit mode.
 *
 * <p>Inside a trace (an activity's), each statement is a client span named {@code ledger NAME} (see
 * {@link StatementNames}) with the parameterised SQL and never a bound value; statements run
 * outside any trace (the periodic statistics) are not traced, so they do not flood the backend with
 * one-span traces.
 */
final class Jdbc {

  static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system.name");
  static final AttributeKey<String> DB_SUMMARY = AttributeKey.stringKey("db.query.summary");
  static final AttributeKey<String> DB_TEXT = AttributeKey.stringKey("db.query.text");
  static final AttributeKey<Long> DB_ROWS = AttributeKey.longKey("db.response.returned_rows");
  static final AttributeKey<Long> DB_UPDATED = AttributeKey.longKey("genace.db.updated_rows");
  static final AttributeKey<String> DB_STATUS = AttributeKey.stringKey("db.response.status_code");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /** PostgreSQL's lock_not_available and query_canceled: the bounded waits ran out. */
  private static final List<String> CONTENTION_STATES = List.of("55P03", "57014");

  @FunctionalInterface
  interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  private final DataSource dataSource;
  private final Tracer tracer;

  Jdbc(DataSource dataSource) {
    this(dataSource, GlobalOpenTelemetry.getOrNoop());
  }

  Jdbc(DataSource dataSource, OpenTelemetry openTelemetry) {
    this.dataSource = dataSource;
    this.tracer = openTelemetry.getTracer("com.genace.ledger");
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
    Span span = startSpan(sql);
    try (Scope ignored = span.makeCurrent();
        Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, args);
      try (ResultSet rs = statement.executeQuery()) {
        List<T> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
        span.setAttribute(DB_ROWS, (long) rows.size());
        return rows;
      }
    } catch (SQLException | RuntimeException e) {
      failed(span, e);
      throw e;
    } finally {
      span.end();
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
    Span span = startSpan(sql);
    try (Scope ignored = span.makeCurrent();
        Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, args);
      int updated = statement.executeUpdate();
      span.setAttribute(DB_UPDATED, (long) updated);
      return updated;
    } catch (SQLException e) {
      failed(span, e);
      throw translate(e);
    } catch (RuntimeException e) {
      failed(span, e);
      throw e;
    } finally {
      span.end();
    }
  }

  private Span startSpan(String sql) {
    if (!Span.current().getSpanContext().isValid()) {
      return Span.getInvalid();
    }
    String name = StatementNames.of(sql);
    return tracer
        .spanBuilder("ledger " + name)
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(DB_SYSTEM, "postgresql")
        .setAttribute(DB_SUMMARY, name)
        .setAttribute(DB_TEXT, sql)
        .startSpan();
  }

  /** The SQL state and type only: a driver's message may quote a bound value. */
  private static void failed(Span span, Exception e) {
    if (e instanceof SQLException sql && sql.getSQLState() != null) {
      span.setAttribute(DB_STATUS, sql.getSQLState());
    }
    span.setAttribute(ERROR_TYPE, e.getClass().getName());
    span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
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
