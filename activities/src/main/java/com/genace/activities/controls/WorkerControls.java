package com.genace.activities.controls;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
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

  /** Pauses only a running dispatch: a pause already in place (and its reason) stays. */
  static final SqlStatement PAUSE_IF_RUNNING =
      SqlStatement.of(
          "pause_control_if_running",
          """
          INSERT INTO app_worker_controls (name, enabled, changed_by, reason, changed_at)
          VALUES (?, true, ?, ?, clock_timestamp())
          ON CONFLICT (name) DO UPDATE
          SET enabled = true, changed_by = excluded.changed_by,
              reason = excluded.reason, changed_at = excluded.changed_at
          WHERE NOT app_worker_controls.enabled
          """);

  /**
   * Pauses dispatch fleet-wide unless it is paused already, in one statement.
   *
   * @return true if this call paused it; false if a pause was in place (and is left as it was)
   */
  public boolean pauseDispatchIfRunning(String by, String reason) {
    String who = requireWho(by);
    return applied(
        sql.update(
            PAUSE_IF_RUNNING,
            p ->
                p.text(DISPATCH_PAUSED) // name
                    .text(who) // changed_by
                    .text(reason))); // reason
  }

  /** Resumes only the very pause that was read: one set in between stays. */
  static final SqlStatement RESUME_IF_UNCHANGED =
      SqlStatement.of(
          "resume_control_if_unchanged",
          """
          UPDATE app_worker_controls
          SET enabled = false, changed_by = ?, reason = ?, changed_at = clock_timestamp()
          WHERE name = ? AND enabled
            AND changed_by = ? AND reason IS NOT DISTINCT FROM ? AND changed_at = ?
          """);

  /**
   * Resumes dispatch only if the current pause is still {@code expected} (same who, reason and
   * time), in one statement.
   *
   * @return true if this call resumed it; false if the pause had changed or was already lifted
   */
  public boolean resumeDispatchIfUnchanged(DispatchPause expected, String by, String reason) {
    String who = requireWho(by);
    return applied(
        sql.update(
            RESUME_IF_UNCHANGED,
            p ->
                p.text(who) // changed_by
                    .text(reason) // reason
                    .text(DISPATCH_PAUSED) // name
                    .text(expected.pausedBy()) // changed_by
                    .text(expected.reason()) // reason
                    .timestamp(expected.since()))); // changed_at
  }

  /** A conditional change's row count: 0 = not applied, 1 = applied, more = a bug. */
  private static boolean applied(int rows) {
    if (rows > 1) {
      throw new IllegalStateException("a dispatch pause change touched " + rows + " rows");
    }
    return rows == 1;
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
