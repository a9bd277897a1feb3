package com.genace.activities.db;

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
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The one way the application runs SQL: one prepared statement per call on a pooled connection in
 * autocommit mode (or inside {@link #inTransaction}), bounded by the pool's lock and statement
 * timeouts (see {@link Database}).
 *
 * <p>For every statement it:
 *
 * <ol>
 *   <li>inside a trace (an activity's), opens a client span {@code SCOPE NAME} with the
 *       parameterised SQL and never a bound value; outside any trace (periodic statistics) it opens
 *       none, so the backend is not flooded with one-span traces;
 *   <li>reports the statement's name, duration and outcome to the injected {@link StatementStats};
 *   <li>turns a {@link SQLException} into the caller's own exception type ({@link Failures}),
 *       telling contention (lock or statement timeout) apart from other failures.
 * </ol>
 *
 * <p>Each package gets its own view with {@link #as}: the same pool, tracer and statistics, its own
 * span prefix and exception type.
 */
public final class Sql {

  public static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system.name");
  public static final AttributeKey<String> DB_SUMMARY = AttributeKey.stringKey("db.query.summary");
  public static final AttributeKey<String> DB_TEXT = AttributeKey.stringKey("db.query.text");
  public static final AttributeKey<Long> DB_ROWS =
      AttributeKey.longKey("db.response.returned_rows");
  public static final AttributeKey<Long> DB_UPDATED =
      AttributeKey.longKey("genace.db.updated_rows");
  public static final AttributeKey<String> DB_STATUS =
      AttributeKey.stringKey("db.response.status_code");
  public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /** PostgreSQL's lock_not_available and query_canceled: the bounded waits ran out. */
  private static final List<String> CONTENTION_STATES = List.of("55P03", "57014");

  /** Binds one statement's parameters. */
  @FunctionalInterface
  public interface Binder {
    Binder NONE = params -> {};

    void bind(Params params) throws SQLException;
  }

  @FunctionalInterface
  public interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  /** Turns a failed statement into the calling package's exception. */
  @FunctionalInterface
  public interface Failures {
    RuntimeException failed(SqlStatement statement, SQLException cause, boolean contention);
  }

  /** Work done on one connection in one transaction. */
  @FunctionalInterface
  public interface TransactionWork<T> {
    T run(Sql transaction);
  }

  private final DataSource dataSource;
  private final Tracer tracer;
  private final StatementStats stats;
  private final String scope;
  private final Failures failures;
  private final Connection pinned;

  public Sql(DataSource dataSource, OpenTelemetry openTelemetry, StatementStats stats) {
    this(
        dataSource,
        openTelemetry.getTracer("com.genace.activities.db"),
        stats,
        "db",
        Sql::defaultFailure,
        null);
  }

  private Sql(
      DataSource dataSource,
      Tracer tracer,
      StatementStats stats,
      String scope,
      Failures failures,
      Connection pinned) {
    this.dataSource = dataSource;
    this.tracer = tracer;
    this.stats = stats;
    this.scope = scope;
    this.failures = failures;
    this.pinned = pinned;
  }

  /** A runner on {@code dataSource} with the global OpenTelemetry and no statistics. */
  public static Sql of(DataSource dataSource) {
    return new Sql(dataSource, GlobalOpenTelemetry.getOrNoop(), StatementStats.NONE);
  }

  /** The same runner, naming spans {@code scope NAME} and failing with {@code failures}. */
  public Sql as(String scope, Failures failures) {
    return new Sql(dataSource, tracer, stats, scope, failures, pinned);
  }

  public <T> List<T> query(SqlStatement statement, Binder binder, RowMapper<T> mapper) {
    Span span = startSpan(statement);
    long started = System.nanoTime();
    try (Scope ignored = span.makeCurrent()) {
      List<T> rows = withConnection(c -> rows(c, statement, binder, mapper));
      span.setAttribute(DB_ROWS, (long) rows.size());
      stats.executed(statement.name(), since(started), StatementStats.Outcome.OK);
      return rows;
    } catch (SQLException e) {
      throw failed(statement, span, started, e);
    } catch (RuntimeException e) {
      failedSpan(span, e);
      stats.executed(statement.name(), since(started), StatementStats.Outcome.FAILED);
      throw e;
    } finally {
      span.end();
    }
  }

  /**
   * At most one row.
   *
   * @throws IllegalStateException if the statement returned more: a bug, never a race
   */
  public <T> Optional<T> queryOne(SqlStatement statement, Binder binder, RowMapper<T> mapper) {
    List<T> rows = query(statement, binder, mapper);
    if (rows.size() > 1) {
      throw new IllegalStateException(
          statement.name() + " expected at most one row, got " + rows.size());
    }
    return rows.stream().findFirst();
  }

  /** Exactly one row, as statements that always answer (aggregates, outcome rows) return. */
  public <T> T queryExactlyOne(SqlStatement statement, Binder binder, RowMapper<T> mapper) {
    return queryOne(statement, binder, mapper)
        .orElseThrow(() -> new IllegalStateException(statement.name() + " returned no row"));
  }

  /** Runs a statement that returns no rows; returns how many rows it changed. */
  public int update(SqlStatement statement, Binder binder) {
    Span span = startSpan(statement);
    long started = System.nanoTime();
    try (Scope ignored = span.makeCurrent()) {
      int updated =
          withConnection(
              c -> {
                try (PreparedStatement ps = prepare(c, statement, binder)) {
                  return ps.executeUpdate();
                }
              });
      span.setAttribute(DB_UPDATED, (long) updated);
      stats.executed(statement.name(), since(started), StatementStats.Outcome.OK);
      return updated;
    } catch (SQLException e) {
      throw failed(statement, span, started, e);
    } catch (RuntimeException e) {
      failedSpan(span, e);
      stats.executed(statement.name(), since(started), StatementStats.Outcome.FAILED);
      throw e;
    } finally {
      span.end();
    }
  }

  /**
   * Runs {@code work} in one short transaction on one connection: committed if it returns, rolled
   * back if it throws. Never hold one across a network call.
   */
  public <T> T inTransaction(SqlStatement name, TransactionWork<T> work) {
    if (pinned != null) {
      return work.run(this);
    }
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        T result = work.run(new Sql(dataSource, tracer, stats, scope, failures, connection));
        connection.commit();
        return result;
      } catch (RuntimeException e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw failures.failed(name, e, isContention(e));
    }
  }

  @FunctionalInterface
  private interface ConnectionWork<T> {
    T run(Connection connection) throws SQLException;
  }

  private <T> T withConnection(ConnectionWork<T> work) throws SQLException {
    if (pinned != null) {
      return work.run(pinned);
    }
    try (Connection connection = dataSource.getConnection()) {
      return work.run(connection);
    }
  }

  private static <T> List<T> rows(
      Connection connection, SqlStatement statement, Binder binder, RowMapper<T> mapper)
      throws SQLException {
    try (PreparedStatement ps = prepare(connection, statement, binder);
        ResultSet rs = ps.executeQuery()) {
      List<T> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(mapper.map(rs));
      }
      return rows;
    }
  }

  private static PreparedStatement prepare(
      Connection connection, SqlStatement statement, Binder binder) throws SQLException {
    PreparedStatement ps = connection.prepareStatement(statement.sql());
    try {
      // A missing or extra binding fails in the driver, before anything runs.
      binder.bind(new Params(ps));
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }

  private RuntimeException failed(SqlStatement statement, Span span, long started, SQLException e) {
    failedSpan(span, e);
    boolean contention = isContention(e);
    stats.executed(
        statement.name(),
        since(started),
        contention ? StatementStats.Outcome.CONTENTION : StatementStats.Outcome.FAILED);
    return failures.failed(statement, e, contention);
  }

  private static boolean isContention(SQLException e) {
    return CONTENTION_STATES.contains(e.getSQLState());
  }

  private Span startSpan(SqlStatement statement) {
    if (!Span.current().getSpanContext().isValid()) {
      return Span.getInvalid();
    }
    return tracer
        .spanBuilder(scope + " " + statement.name())
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(DB_SYSTEM, "postgresql")
        .setAttribute(DB_SUMMARY, statement.name())
        .setAttribute(DB_TEXT, statement.sql())
        .startSpan();
  }

  /** The SQL state and type only: a driver's message may quote a bound value. */
  private static void failedSpan(Span span, Exception e) {
    if (e instanceof SQLException sql && sql.getSQLState() != null) {
      span.setAttribute(DB_STATUS, sql.getSQLState());
    }
    span.setAttribute(ERROR_TYPE, e.getClass().getName());
    span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
  }

  private static void rollbackQuietly(Connection connection, RuntimeException cause) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  private static Duration since(long startedNanos) {
    return Duration.ofNanos(System.nanoTime() - startedNanos);
  }

  private static RuntimeException defaultFailure(
      SqlStatement statement, SQLException cause, boolean contention) {
    return new DatabaseException(
        statement.name()
            + (contention ? " gave up waiting (lock or statement timeout): " : " failed: ")
            + cause.getMessage(),
        cause);
  }

  public static Optional<Instant> instant(ResultSet rs, String column) throws SQLException {
    return Optional.ofNullable(rs.getObject(column, OffsetDateTime.class))
        .map(OffsetDateTime::toInstant);
  }

  public static Optional<String> text(ResultSet rs, String column) throws SQLException {
    return Optional.ofNullable(rs.getString(column));
  }
}
