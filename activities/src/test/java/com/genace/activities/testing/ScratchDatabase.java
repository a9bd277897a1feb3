package com.genace.activities.testing;

import com.genace.activities.db.DatabaseUrl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * A database of its own on the shared test server, for a test that needs a schema other than the
 * shared one's (migrations applied up to some version, or beyond it) or sessions no other test
 * touches. Dropped on close. The server's user needs {@code CREATEDB}.
 */
public final class ScratchDatabase implements AutoCloseable {

  private final String name;
  private final DatabaseUrl url;

  private ScratchDatabase(String name, DatabaseUrl url) {
    this.name = name;
    this.url = url;
  }

  /** A new empty database; {@code purpose} begins its name (letters, digits, underscores). */
  public static ScratchDatabase create(String purpose) {
    if (!purpose.matches("[a-z0-9_]{1,30}")) {
      throw new IllegalArgumentException("purpose must be a short lower-case identifier");
    }
    String name = purpose + "_" + UUID.randomUUID().toString().substring(0, 8);
    execute(TestDatabase.url(), "CREATE DATABASE " + name);
    DatabaseUrl shared = TestDatabase.url();
    String jdbc = shared.jdbcUrl().replaceFirst("^(jdbc:postgresql://[^/]*)/[^?]*", "$1/" + name);
    return new ScratchDatabase(name, new DatabaseUrl(jdbc, shared.user(), shared.password()));
  }

  public DatabaseUrl url() {
    return url;
  }

  /** Opens a connection of its own (not pooled, no timeouts): the caller closes it. */
  public Connection connect() throws SQLException {
    return connect(url);
  }

  /** Runs one statement in autocommit, with no statement timeout. */
  public void execute(String sql) {
    execute(url, sql);
  }

  /** The first column of the first row, or empty when there is no row or it is NULL. */
  public Optional<String> queryOne(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
    } catch (SQLException e) {
      throw new IllegalStateException("query failed on " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    execute(TestDatabase.url(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  private static Connection connect(DatabaseUrl url) throws SQLException {
    Properties properties = new Properties();
    url.user().ifPresent(user -> properties.setProperty("user", user));
    url.password().ifPresent(password -> properties.setProperty("password", password));
    return DriverManager.getConnection(url.jdbcUrl(), properties);
  }

  private static void execute(DatabaseUrl url, String sql) {
    try (Connection connection = connect(url);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("could not run " + sql + ": " + e.getMessage(), e);
    }
  }
}
