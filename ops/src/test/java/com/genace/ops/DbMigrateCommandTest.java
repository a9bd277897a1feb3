package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.TestDatabase;
import com.genace.ops.support.CliRunner;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DbMigrateCommandTest {

  @Test
  void migrate_applies_the_schema_to_a_fresh_database_given_as_a_postgresql_url() throws Exception {
    TestDatabase.dataSource();
    try (Connection connection = TestDatabase.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS migrate_target");
      statement.execute("CREATE DATABASE migrate_target");
    }
    String url = TestDatabase.url().jdbcUrl().replaceFirst("/[^/?]*(\\?.*)?$", "/migrate_target");
    String user = TestDatabase.url().user().orElse("postgres");
    String libpqUrl = url.replace("jdbc:postgresql://", "postgresql://" + user + "@");

    CliRunner.Result first = CliRunner.run(Map.of("DATABASE_URL", libpqUrl), "db", "migrate");
    CliRunner.Result again =
        CliRunner.run(Map.of("DATABASE_URL", url + "?user=" + user), "db", "migrate");

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out())
        .matches("(?s)applied [1-9][0-9]* migration\\(s\\); the schema of .* is current\\n");
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.out()).startsWith("applied 0 migration(s)");
    try (Connection connection = TestDatabase.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = 'migrate_target'")) {
      assertThat(rs.next()).isTrue();
    }
  }

  @Test
  void migrate_without_a_database_url_names_the_variable_and_exits_1() {
    CliRunner.Result result = CliRunner.run(Map.of(), "db", "migrate");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("genace: error: DATABASE_URL is not set\n");
  }

  @Test
  void migrate_with_a_malformed_url_exits_1_without_echoing_the_password() {
    CliRunner.Result result =
        CliRunner.run(Map.of("DATABASE_URL", "postgresql://u:s3cret@/db"), "db", "migrate");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).contains("DATABASE_URL is invalid").doesNotContain("s3cret");
  }

  @Test
  void migrate_against_an_unreachable_server_exits_1_with_the_cause_and_no_password() {
    CliRunner.Result result =
        CliRunner.run(
            Map.of("DATABASE_URL", "postgresql://u:s3cret@127.0.0.1:1/db"), "db", "migrate");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).contains("could not migrate").doesNotContain("s3cret");
  }

  @Test
  void an_unknown_command_exits_2_with_the_reason_and_the_usage() {
    CliRunner.Result result = CliRunner.run(Map.of(), "frobnicate");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("Unmatched argument").contains("Usage: genace");
  }
}
