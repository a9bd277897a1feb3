package com.genace.activities.testing;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseUrl;
import com.genace.testkit.EmbeddedDatabase;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * One real PostgreSQL per test JVM: an embedded server by default, or the server named by {@code
 * GENACE_TEST_DATABASE_URL}. The schema comes from the production migrations.
 */
public final class TestDatabase {

  public static final String URL_VARIABLE = "GENACE_TEST_DATABASE_URL";

  private static DatabaseUrl url;
  private static Database database;

  private TestDatabase() {}

  public static synchronized DataSource dataSource() {
    if (database == null) {
      url = resolveUrl();
      database = Database.open(DatabaseConfig.of(url).withMaxPoolSize(30));
      database.migrate();
    }
    return database.dataSource();
  }

  /** The server's URL, for code under test that opens its own connections. */
  public static synchronized DatabaseUrl url() {
    dataSource();
    return url;
  }

  /**
   * The server as a {@code DATABASE_URL} value, for a worker or a command under test that reads its
   * environment: the JDBC URL with the user and password as query parameters.
   */
  public static String databaseUrlValue() {
    DatabaseUrl server = url();
    String credentials =
        Stream.of(
                server.user().map(user -> "user=" + encoded(user)),
                server.password().map(password -> "password=" + encoded(password)))
            .flatMap(Optional::stream)
            .collect(Collectors.joining("&"));
    String jdbc = server.jdbcUrl();
    return credentials.isEmpty() ? jdbc : jdbc + (jdbc.contains("?") ? "&" : "?") + credentials;
  }

  /**
   * A login of the test server granted {@code duty} (one of V22's roles) and nothing else, created
   * once (roles belong to the server), and its {@code DATABASE_URL} value.
   */
  public static synchronized String loginWith(String duty) {
    String login = duty + "_test_login";
    String password = "pw-" + duty;
    try (Connection connection = dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      // PostgreSQL 15's default, which the embedded server (an older one) and a shared server may
      // lack: without it every role, ours included, may create tables in public.
      statement.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
      statement.execute(
          "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '"
              + login
              + "') THEN CREATE ROLE "
              + login
              + " LOGIN PASSWORD '"
              + password
              + "' IN ROLE "
              + duty
              + "; END IF; END $$");
    } catch (SQLException e) {
      throw new IllegalStateException("could not create the login " + login, e);
    }
    String jdbc = url().jdbcUrl();
    return jdbc
        + (jdbc.contains("?") ? "&" : "?")
        + "user="
        + encoded(login)
        + "&password="
        + encoded(password);
  }

  private static String encoded(String parameter) {
    return URLEncoder.encode(parameter, StandardCharsets.UTF_8);
  }

  /** Empties every application table; tests start from nothing. */
  public static void clear() {
    try (Connection connection = dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "TRUNCATE app_dispatch_reservations, app_generation_transitions, app_generation_operations,"
              + " app_worker_controls, app_fleet_configuration, app_allowance_counters,"
              + " app_allowance_slices,"
              + " app_fleet_statistics, app_review_evidence, app_review_evidence_history,"
              + " app_sweep_cursor, app_approvers, app_approvals_used, app_account_settings,"
              + " app_account_holds");
    } catch (SQLException e) {
      throw new IllegalStateException("could not clear the test database", e);
    }
  }

  private static DatabaseUrl resolveUrl() {
    String configured = System.getenv(URL_VARIABLE);
    if (configured != null && !configured.isBlank()) {
      return DatabaseUrl.parse(configured);
    }
    EmbeddedDatabase embedded = EmbeddedDatabase.start(0);
    Runtime.getRuntime().addShutdownHook(new Thread(embedded::close, "embedded-postgres-stop"));
    return DatabaseUrl.parse(embedded.url());
  }
}
