package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.testkit.EmbeddedDatabase;
import com.genace.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A managed PostgreSQL as a platform gives it: TLS required, a password checked (SCRAM), and a
 * {@code DATABASE_URL} that carries a password with {@code + % @ :} and libpq's TLS parameters. The
 * server is an embedded PostgreSQL of its own with a certificate made here by {@code openssl},
 * signed by a CA of its own.
 */
class DatabaseTlsTest {

  static final String USER = "genace_tls";
  static final String PASSWORD = "p+w%d@x:y";
  static final String ENCODED_PASSWORD = "p+w%25d%40x%3Ay";

  @TempDir static Path dir;
  static EmbeddedDatabase database;

  @BeforeAll
  static void startATlsServer() throws Exception {
    // As root, the server runs as an unprivileged user (UnprivilegedPostgres): it must read these.
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    TestCertificates certificates = TestCertificates.in(dir);
    TestCertificates.Pair ca = certificates.ca("ca");
    TestCertificates.Pair server = certificates.signed("server", ca, "IP:127.0.0.1");
    Files.writeString(
        dir.resolve("pg_hba.conf"),
        """
        local     all all                       trust
        host      all postgres  127.0.0.1/32    trust
        hostssl   all %1$s 127.0.0.1/32    scram-sha-256
        hostnossl all %1$s 127.0.0.1/32    reject
        """
            .formatted(USER));
    for (String file : List.of("server.crt", "server.key", "pg_hba.conf", "ca.crt")) {
      Files.setPosixFilePermissions(
          dir.resolve(file), PosixFilePermissions.fromString("rw-r--r--"));
    }
    Path key = server.key();
    if ("root".equals(System.getProperty("user.name"))) {
      // PostgreSQL reads a key only from a file its own user owns (0600), or root (0640).
      String owner = System.getenv().getOrDefault("GENACE_UNPRIVILEGED_USER", "nobody");
      Files.setOwner(
          key, key.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(owner));
    }
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    database =
        EmbeddedDatabase.start(
            0,
            Map.of(
                "ssl", "on",
                "ssl_cert_file", server.cert().toString(),
                "ssl_key_file", key.toString(),
                "hba_file", dir.resolve("pg_hba.conf").toString(),
                "password_encryption", "scram-sha-256"));
    try (Connection admin =
            DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:" + database.port() + "/postgres", "postgres", "");
        Statement statement = admin.createStatement()) {
      statement.execute(
          "CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD.replace("'", "''") + "'");
    }
  }

  @AfterAll
  static void stop() {
    if (database != null) {
      database.close();
    }
  }

  private static String url(String parameters) {
    return "postgresql://"
        + USER
        + ":"
        + ENCODED_PASSWORD
        + "@127.0.0.1:"
        + database.port()
        + "/postgres?"
        + parameters;
  }

  @Test
  void the_worker_connects_with_verified_tls_and_a_password_holding_plus_percent_at_and_colon()
      throws Exception {
    DatabaseUrl url =
        DatabaseUrl.parse(
            url(
                "sslmode=verify-full&sslrootcert="
                    + dir.resolve("ca.crt")
                    + "&application_name=genace%20tls%20test"));

    try (Database database = Database.open(DatabaseConfig.of(url).withMaxPoolSize(1));
        Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT current_user, s.ssl, a.application_name FROM pg_stat_ssl s"
                    + " JOIN pg_stat_activity a USING (pid) WHERE pid = pg_backend_pid()")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo(USER);
      assertThat(rs.getBoolean(2)).as("the connection is encrypted").isTrue();
      assertThat(rs.getString(3)).isEqualTo("genace tls test");
    }
  }

  @Test
  void without_tls_or_with_another_password_the_server_refuses() {
    assertThatThrownBy(() -> connect(DatabaseUrl.parse(url("sslmode=disable"))))
        .hasMessageContaining("no encryption");
    assertThatThrownBy(
            () ->
                connect(
                    DatabaseUrl.parse(
                        url("sslmode=require").replace(ENCODED_PASSWORD, "p%20w%25d%40x%3Ay"))))
        .hasMessageContaining("password authentication failed");
  }

  @Test
  void a_certificate_not_signed_by_the_given_ca_is_refused_under_verify_full() {
    Path other = TestCertificates.in(dir).ca("other-ca").cert();

    assertThatThrownBy(
            () -> connect(DatabaseUrl.parse(url("sslmode=verify-full&sslrootcert=" + other))))
        .isInstanceOf(SQLException.class);
  }

  private static void connect(DatabaseUrl url) throws SQLException {
    try (Connection connection =
        DriverManager.getConnection(
            url.jdbcUrl(), url.user().orElse(null), url.password().orElse(null))) {
      connection.isValid(5);
    }
  }
}
