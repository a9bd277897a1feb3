package com.genace.activities.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The other sessions' oldest open transactions, as a migration that waited too long for a lock
 * names them: what an operator looks at first ({@code pg_terminate_backend} is theirs to decide).
 * Pid, application, state and age, never the query text, which may carry values. Without {@code
 * pg_read_all_stats}, PostgreSQL hides other roles' transactions.
 */
final class OpenTransactions {

  private static final String OLDEST =
      """
      SELECT string_agg(format('pid %s (%s, %s for %s s)', pid,
                               coalesce(nullif(application_name, ''), usename), state,
                               round(extract(epoch FROM clock_timestamp() - xact_start))),
                        '; ' ORDER BY xact_start)
      FROM (SELECT pid, application_name, usename, state, xact_start
            FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND xact_start IS NOT NULL AND application_name <> ?
            ORDER BY xact_start
            LIMIT 3) oldest
      """;

  private OpenTransactions() {}

  /** Up to three, oldest first; {@code none now}, or why they could not be read. */
  static String oldest(DataSource source) {
    try (Connection connection = source.getConnection();
        PreparedStatement statement = connection.prepareStatement(OLDEST)) {
      statement.setString(1, Migrations.APPLICATION_NAME);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return Optional.ofNullable(rs.getString(1)).orElse("none now");
      }
    } catch (SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
