package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code DATABASE_URL} read as libpq reads it. */
class DatabaseUrlTest {

  @Test
  void a_password_with_plus_percent_at_and_colon_reads_as_libpq_reads_it() {
    DatabaseUrl url =
        DatabaseUrl.parse("postgresql://genace:p+w%25d%40x%3Ay:z@db.internal:5433/ledger");

    assertThat(url.user()).contains("genace");
    assertThat(url.password()).contains("p+w%d@x:y:z");
    assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.internal:5433/ledger");
    assertThat(url.toString()).doesNotContain("p+w");
  }

  @Test
  void a_raw_at_in_the_password_is_read_up_to_the_last_at() {
    assertThat(DatabaseUrl.parse("postgres://u:p@ss@db/x").password()).contains("p@ss");
  }

  @Test
  void libpq_parameters_pass_through_and_those_the_driver_spells_otherwise_are_renamed() {
    DatabaseUrl url =
        DatabaseUrl.parse(
            "postgresql://u@db1:5432,db2:5432/ledger?sslmode=verify-full"
                + "&sslrootcert=/etc/ssl/ca%20bundle.pem&connect_timeout=5"
                + "&application_name=genace%2Bworker&target_session_attrs=read-write"
                + "&options=-c%20statement_timeout%3D5000");

    assertThat(url.jdbcUrl())
        .isEqualTo(
            "jdbc:postgresql://db1:5432,db2:5432/ledger?sslmode=verify-full"
                + "&sslrootcert=%2Fetc%2Fssl%2Fca+bundle.pem&connectTimeout=5"
                + "&ApplicationName=genace%2Bworker&targetServerType=primary"
                + "&options=-c+statement_timeout%3D5000");
  }

  @Test
  void user_password_host_port_and_dbname_may_be_parameters() {
    DatabaseUrl url =
        DatabaseUrl.parse(
            "postgresql:///?host=db.internal&port=6543&dbname=ledger&user=genace&password=s%2Bcret");

    assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.internal:6543/ledger");
    assertThat(url.user()).contains("genace");
    assertThat(url.password()).contains("s+cret");
    assertThat(url.toString()).doesNotContain("s+cret");
  }

  @Test
  void an_ipv6_host_keeps_its_brackets() {
    assertThat(DatabaseUrl.parse("postgresql://[::1]:5432/x").jdbcUrl())
        .isEqualTo("jdbc:postgresql://[::1]:5432/x");
  }

  @Test
  void a_jdbc_url_is_taken_as_it_is() {
    DatabaseUrl url = DatabaseUrl.parse("jdbc:postgresql://db/x?user=a&password=b");

    assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db/x?user=a&password=b");
    assertThat(url.user()).isEqualTo(Optional.empty());
    assertThat(url.toString()).doesNotContain("password=b");
  }

  @Test
  void malformed_urls_say_what_is_wrong_without_the_password() {
    assertThatThrownBy(() -> DatabaseUrl.parse("mysql://db/x"))
        .hasMessage("database URL must start with postgresql:// or jdbc:postgresql://");
    assertThatThrownBy(() -> DatabaseUrl.parse("postgresql://u:100%secret@db/x"))
        .hasMessage(
            "database URL has a malformed percent-encoding in its password (a literal % is"
                + " written %25)")
        .message()
        .doesNotContain("secret");
    assertThatThrownBy(() -> DatabaseUrl.parse("postgresql://u@/x"))
        .hasMessageStartingWith("database URL has no host");
    assertThatThrownBy(() -> DatabaseUrl.parse("postgresql://db/x?password"))
        .hasMessage("database URL parameter 'password=***' is not name=value");
    assertThatThrownBy(() -> DatabaseUrl.parse("postgresql://db/x?target_session_attrs=fast"))
        .hasMessageStartingWith("database URL parameter target_session_attrs must be one of");
    assertThatThrownBy(() -> DatabaseUrl.parse(" ")).hasMessage("database URL is empty");
  }
}
