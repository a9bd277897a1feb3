package com.genace.worker.fleet;

import com.genace.activities.controls.ControlsException;
import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The fleet's current configuration version, durable in {@code app_fleet_configuration} (one row at
 * most). Every worker reads it with the fleet pause; a worker deployed with another version takes
 * no dispatch.
 */
public final class FleetConfiguration {

  private final Sql sql;

  public FleetConfiguration(DataSource dataSource) {
    this(Sql.of(dataSource));
  }

  public FleetConfiguration(Sql sql) {
    this.sql = sql.as("fleet", ControlsException::of);
  }

  static final SqlStatement GET =
      SqlStatement.of(
          "get_config_version",
          "SELECT config_version, changed_by, reason, changed_at FROM app_fleet_configuration");

  /** The fleet's current version, or empty while none was ever set. */
  public Optional<ConfigVersion> current() {
    return sql.queryOne(
        GET,
        Sql.Binder.NONE,
        rs ->
            new ConfigVersion(
                rs.getString("config_version"),
                rs.getString("changed_by"),
                rs.getString("reason"),
                Sql.instant(rs, "changed_at").orElseThrow()));
  }

  static final SqlStatement SET =
      SqlStatement.of(
          "set_config_version",
          """
          INSERT INTO app_fleet_configuration (singleton, config_version, changed_by, reason, changed_at)
          VALUES (true, ?, ?, ?, clock_timestamp())
          ON CONFLICT (singleton) DO UPDATE
          SET config_version = excluded.config_version, changed_by = excluded.changed_by,
              reason = excluded.reason, changed_at = excluded.changed_at
          """);

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
    sql.update(
        SET,
        p ->
            p.text(version) // config_version
                .text(by) // changed_by
                .text(reason)); // reason
  }
}
