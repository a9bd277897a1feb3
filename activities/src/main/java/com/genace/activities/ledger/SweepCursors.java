package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The one row of {@code app_sweep_cursor} (see V14): read, created when missing, and moved only
 * over the generation it was read at, so that of two overlapping passes only one goes on.
 */
final class SweepCursors {

  private final Sql sql;

  SweepCursors(Sql sql) {
    this.sql = sql;
  }

  static final SqlStatement READ =
      SqlStatement.of(
          "sweep_cursor",
          """
          SELECT phase, created_at, generation, walks_completed, moved_at, moved_by
          FROM app_sweep_cursor WHERE id = 1
          """);

  /** The row's first version: the start of a walk. */
  static final SqlStatement CREATE =
      SqlStatement.of(
          "create_sweep_cursor",
          """
          INSERT INTO app_sweep_cursor
              (id, phase, created_at, generation, walks_completed, moved_at, moved_by)
          VALUES (1, '', 'epoch', 0, 0, clock_timestamp(), ?)
          ON CONFLICT (id) DO NOTHING
          """);

  /**
   * Moves the position if the generation is still the one read; a finished walk counts one more and
   * starts again at the beginning.
   */
  static final SqlStatement MOVE =
      SqlStatement.of(
          "move_sweep_cursor",
          """
          UPDATE app_sweep_cursor
          SET phase = ?, created_at = ?, generation = generation + 1,
              walks_completed = walks_completed + CASE WHEN ? THEN 1 ELSE 0 END,
              moved_at = clock_timestamp(), moved_by = ?
          WHERE id = 1 AND generation = ?
          """);

  SweepCursor read(String reader) {
    return sql.queryOne(READ, Sql.Binder.NONE, SweepCursors::cursor)
        .orElseGet(
            () -> {
              sql.update(CREATE, p -> p.text(reader)); // moved_by
              return sql.queryOne(READ, Sql.Binder.NONE, SweepCursors::cursor)
                  .orElseThrow(() -> new LedgerException("sweep cursor row is missing"));
            });
  }

  boolean move(long generation, SweepPosition to, boolean walkCompleted, String owner) {
    int moved =
        sql.update(
            MOVE,
            p ->
                p.text(to.phase()) // phase
                    .timestamp(to.createdAt()) // created_at
                    .bool(walkCompleted) // one more walk completed?
                    .text(owner) // moved_by
                    .bigint(generation)); // the generation read
    return moved == 1;
  }

  private static SweepCursor cursor(ResultSet rs) throws SQLException {
    return new SweepCursor(
        new SweepPosition(rs.getString("phase"), Sql.instant(rs, "created_at").orElseThrow()),
        rs.getLong("generation"),
        rs.getLong("walks_completed"),
        Sql.instant(rs, "moved_at").orElseThrow(),
        rs.getString("moved_by"));
  }
}
