package com.genace.controls;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Durable, fleet-wide switches in {@code app_worker_controls}. Every worker reads them, so a pause
 * survives restarts and reaches all workers sharing the database. Observation and delivery are
 * never paused.
 */
public final class WorkerControls {

  static final String DISPATCH_PAUSED = "dispatch_paused";

  private final Sql sql;

  public WorkerControls(DataSource dataSource) {
    this(Sql.of(dataSource));
  }

  public WorkerControls(Sql sql) {
    this.sql = sql.as("controls", ControlsException::of);
  }

  /** Stops every worker from sending new POSTs until {@link #resumeDispatch}. */
  public void pauseDispatch(String by, String reason) {
    set(true, requireWho(by), reason);
  }

  public void resumeDispatch(String by, String reason) {
    set(false, requireWho(by), reason);
  }

  static final SqlStatement GET =
      SqlStatement.of(
          "get_control",
          "SELECT enabled, changed_by, reason, changed_at FROM app_worker_controls WHERE name = ?");

  /** The current fleet-wide pause, if any. */
  public Optional<DispatchPause> dispatchPause() {
    return sql.queryOne(
            GET,
            p -> p.text(DISPATCH_PAUSED), // name
            rs ->
                rs.getBoolean("enabled")
                    ? Optional.of(
                        new DispatchPause(
                            rs.getString("changed_by"),
                            rs.getString("reason"),
                            Sql.instant(rs, "changed_at").orElseThrow()))
                    : Optional.<DispatchPause>empty())
        .flatMap(pause -> pause);
  }

  static final SqlStatement SET =
      SqlStatement.of(
          "set_control",
          """
          INSERT INTO app_worker_controls (name, enabled, changed_by, reason, changed_at)
          VALUES (?, ?, ?, ?, clock_timestamp())
          ON CONFLICT (name) DO UPDATE
          SET enabled = excluded.enabled, changed_by = excluded.changed_by,
              reason = excluded.reason, changed_at = excluded.changed_at
          """);

  private void set(boolean paused, String by, String reason) {
    sql.update(
        SET,
        p ->
            p.text(DISPATCH_PAUSED) // name
                .bool(paused) // enabled
                .text(by) // changed_by
                .text(reason)); // reason
  }

  private static String requireWho(String by) {
    if (by == null || by.isBlank()) {
      throw new IllegalArgumentException("who changes the pause must be given");
    }
    return by;
  }
}
