package com.genace.controls;

import com.genace.ledger.LedgerException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Durable, fleet-wide switches in {@code app_worker_controls}. Every worker reads them, so a pause
 * survives restarts and reaches all workers sharing the database. Observation and delivery are
 * never paused.
 */
public final class WorkerControls {

  static final String DISPATCH_PAUSED = "dispatch_paused";

  private static final String SET =
      """
      INSERT INTO app_worker_controls (name, enabled, changed_by, reason, changed_at)
      VALUES (?, ?, ?, ?, clock_timestamp())
      ON CONFLICT (name) DO UPDATE
      SET enabled = excluded.enabled, changed_by = excluded.changed_by,
          reason = excluded.reason, changed_at = excluded.changed_at
      """;

  private static final String GET =
      "SELECT enabled, changed_by, reason, changed_at FROM app_worker_controls WHERE name = ?";

  /** Pauses only a running dispatch: a pause already in place (and its reason) stays. */
  private static final String PAUSE_IF_RUNNING =
      """
      INSERT INTO app_worker_controls (name, enabled, changed_by, reason, changed_at)
      VALUES (?, true, ?, ?, clock_timestamp())
      ON CONFLICT (name) DO UPDATE
      SET enabled = true, changed_by = excluded.changed_by,
          reason = excluded.reason, changed_at = excluded.changed_at
      WHERE NOT app_worker_controls.enabled
      """;

  /** Resumes only the very pause that was read: one set in between stays. */
  private static final String RESUME_IF_UNCHANGED =
      """
      UPDATE app_worker_controls
      SET enabled = false, changed_by = ?, reason = ?, changed_at = clock_timestamp()
      WHERE name = ? AND enabled
        AND changed_by = ? AND reason IS NOT DISTINCT FROM ? AND changed_at = ?
      """;

  private final DataSource dataSource;

  public WorkerControls(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Stops every worker from sending new POSTs until {@link #resumeDispatch}. */
  public void pauseDispatch(String by, String reason) {
    set(true, requireWho(by), reason);
  }

  public void resumeDispatch(String by, String reason) {
    set(false, requireWho(by), reason);
  }

  /** The current fleet-wide pause, if any. */
  public Optional<DispatchPause> dispatchPause() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(GET)) {
      statement.setString(1, DISPATCH_PAUSED);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next() || !rs.getBoolean("enabled")) {
          return Optional.empty();
        }
        return Optional.of(
            new DispatchPause(
                rs.getString("changed_by"),
                rs.getString("reason"),
                rs.getObject("changed_at", OffsetDateTime.class).toInstant()));
      }
    } catch (SQLException e) {
      throw new LedgerException("could not read the dispatch pause: " + e.getMessage(), e);
    }
  }

  /**
   * Pauses dispatch fleet-wide unless it is paused already, in one statement.
   *
   * @return true if this call paused it; false if a pause was in place (and is left as it was)
   */
  public boolean pauseDispatchIfRunning(String by, String reason) {
    return changed(PAUSE_IF_RUNNING, DISPATCH_PAUSED, requireWho(by), reason);
  }

  /**
   * Resumes dispatch only if the current pause is still {@code expected} (same who, reason and
   * time), in one statement.
   *
   * @return true if this call resumed it; false if the pause had changed or was already lifted
   */
  public boolean resumeDispatchIfUnchanged(DispatchPause expected, String by, String reason) {
    return changed(
        RESUME_IF_UNCHANGED,
        requireWho(by),
        reason,
        DISPATCH_PAUSED,
        expected.pausedBy(),
        expected.reason(),
        expected.since().atOffset(java.time.ZoneOffset.UTC));
  }

  /** Runs a conditional change; its row count (0 or 1) says whether it applied. */
  private boolean changed(String sql, Object... parameters) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      int rows = statement.executeUpdate();
      if (rows > 1) {
        throw new IllegalStateException("a dispatch pause change touched " + rows + " rows");
      }
      return rows == 1;
    } catch (SQLException e) {
      throw new LedgerException("could not change the dispatch pause: " + e.getMessage(), e);
    }
  }

  private void set(boolean paused, String by, String reason) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(SET)) {
      statement.setString(1, DISPATCH_PAUSED);
      statement.setBoolean(2, paused);
      statement.setString(3, by);
      statement.setString(4, reason);
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new LedgerException("could not change the dispatch pause: " + e.getMessage(), e);
    }
  }

  private static String requireWho(String by) {
    if (by == null || by.isBlank()) {
      throw new IllegalArgumentException("who changes the pause must be given");
    }
    return by;
  }
}
