package com.genace.worker.fleet;

import com.genace.ledger.LedgerException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The fleet's current configuration version, durable in {@code app_fleet_configuration} (one row at
 * most). Every worker reads it with the fleet pause; a worker deployed with another version takes
 * no dispatch.
 */
public final class FleetConfiguration {

  private static final String SET =
      """
      INSERT INTO app_fleet_configuration (singleton, config_version, changed_by, reason, changed_at)
      VALUES (true, ?, ?, ?, clock_timestamp())
      ON CONFLICT (singleton) DO UPDATE
      SET config_version = excluded.config_version, changed_by = excluded.changed_by,
          reason = excluded.reason, changed_at = excluded.changed_at
      """;

  private static final String GET =
      "SELECT config_version, changed_by, reason, changed_at FROM app_fleet_configuration";

  private final DataSource dataSource;

  public FleetConfiguration(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The fleet's current version, or empty while none was ever set. */
  public Optional<ConfigVersion> current() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(GET);
        ResultSet rs = statement.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new ConfigVersion(
              rs.getString("config_version"),
              rs.getString("changed_by"),
              rs.getString("reason"),
              rs.getObject("changed_at", OffsetDateTime.class).toInstant()));
    } catch (SQLException e) {
      throw new LedgerException(
          "could not read the fleet's configuration version: " + e.getMessage(), e);
    }
  }

  /**
   * Makes {@code version} the fleet's current one.
   *
   * @throws IllegalArgumentException when the version or who sets it is malformed
   */
  public void setVersion(String version, String by, String reason) {
    ConfigVersion.require(version);
    if (by == null || by.isBlank()) {
      throw new IllegalArgumentException("who sets the configuration version must be given");
    }
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(SET)) {
      statement.setString(1, version); // config_version
      statement.setString(2, by); // changed_by
      statement.setString(3, reason); // reason
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new LedgerException(
          "could not set the fleet's configuration version: " + e.getMessage(), e);
    }
  }
}
