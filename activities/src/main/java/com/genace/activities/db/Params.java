package com.genace.activities.db;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Typed, positional binding of one statement's parameters, in the order the SQL declares them:
 * {@code p.text(id) // operation_id}. Nulls are bound with the SQL type of the call.
 */
public final class Params {

  private final PreparedStatement statement;
  private int index;

  Params(PreparedStatement statement) {
    this.statement = statement;
  }

  public Params text(String value) throws SQLException {
    statement.setString(++index, value);
    return this;
  }

  public Params bigint(long value) throws SQLException {
    statement.setLong(++index, value);
    return this;
  }

  /** A number that may be unknown: null is bound as SQL NULL, for a {@code ?::bigint}. */
  public Params bigintOrNull(Long value) throws SQLException {
    if (value == null) {
      statement.setNull(++index, Types.BIGINT);
    } else {
      statement.setLong(++index, value);
    }
    return this;
  }

  /**
   * A real number that may be absent: null is bound as SQL NULL, for a {@code ?::double precision}.
   */
  public Params doubleOrNull(Double value) throws SQLException {
    if (value == null) {
      statement.setNull(++index, Types.DOUBLE);
    } else {
      statement.setDouble(++index, value);
    }
    return this;
  }

  public Params integer(int value) throws SQLException {
    statement.setInt(++index, value);
    return this;
  }

  public Params bool(boolean value) throws SQLException {
    statement.setBoolean(++index, value);
    return this;
  }

  /** A boolean that may be unknown: null is bound as SQL NULL. */
  public Params boolOrNull(Boolean value) throws SQLException {
    if (value == null) {
      statement.setNull(++index, Types.BOOLEAN);
    } else {
      statement.setBoolean(++index, value);
    }
    return this;
  }

  /**
   * A length of time, bound as text for a {@code ?::interval} parameter: seconds with their
   * milliseconds, as PostgreSQL reads a milliseconds field only up to about 24 days.
   */
  public Params interval(Duration value) throws SQLException {
    long millis = value.toMillis();
    statement.setString(
        ++index,
        String.format(java.util.Locale.ROOT, "%d.%03d seconds", millis / 1000, millis % 1000));
    return this;
  }

  /** Texts, for a {@code ?::text[]} parameter (one row each, with {@code unnest}). */
  public Params texts(List<String> values) throws SQLException {
    statement.setArray(++index, statement.getConnection().createArrayOf("text", values.toArray()));
    return this;
  }

  /** JSON text, for a {@code ?::jsonb} parameter. */
  public Params json(String value) throws SQLException {
    if (value == null) {
      statement.setNull(++index, Types.VARCHAR);
    } else {
      statement.setString(++index, value);
    }
    return this;
  }

  /** An instant that may be absent: null is bound as SQL NULL, for a {@code ?::timestamptz}. */
  public Params timestampOrNull(Instant value) throws SQLException {
    if (value == null) {
      statement.setNull(++index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      statement.setObject(++index, value.atOffset(ZoneOffset.UTC));
    }
    return this;
  }

  /** An instant, for a {@code timestamptz} parameter. */
  public Params timestamp(Instant value) throws SQLException {
    statement.setObject(++index, value.atOffset(ZoneOffset.UTC));
    return this;
  }
}
