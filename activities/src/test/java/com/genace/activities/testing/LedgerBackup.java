package com.genace.activities.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A point-in-time copy of some operations' ledger rows and their transitions, written back over
 * whatever the ledger holds later: what a restore from a backup does to those operations (the
 * restore tier, {@code scripts/restore-tier.sh}, does it with {@code pg_dump} and {@code
 * pg_restore} on a whole server). Restoring an operation the copy does not hold deletes it, as a
 * backup older than the operation would.
 */
public final class LedgerBackup {

  private final DataSource db;
  private final Map<String, String[]> saved = new LinkedHashMap<>();

  private LedgerBackup(DataSource db) {
    this.db = db;
  }

  /** Copies the rows of {@code operationIds} as they are now (an absent one is saved absent). */
  public static LedgerBackup take(DataSource db, List<String> operationIds) throws SQLException {
    LedgerBackup backup = new LedgerBackup(db);
    try (Connection c = db.getConnection()) {
      for (String id : operationIds) {
        backup.saved.put(
            id,
            new String[] {
              one(
                  c,
                  "SELECT row_to_json(o)::text FROM app_generation_operations o WHERE operation_id = ?",
                  id),
              one(
                  c,
                  "SELECT coalesce(json_agg(t ORDER BY t.id), '[]')::text"
                      + " FROM app_generation_transitions t WHERE operation_id = ?",
                  id)
            });
      }
    }
    return backup;
  }

  /** Writes the copies back: each operation's row and transitions become the saved ones. */
  public void restore() throws SQLException {
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      for (Map.Entry<String, String[]> entry : saved.entrySet()) {
        // The transitions carry no foreign key (V3): deleted by hand. The row's delete cascades to
        // the evidence and the reservations written since.
        run(c, "DELETE FROM app_generation_transitions WHERE operation_id = ?", entry.getKey());
        run(c, "DELETE FROM app_generation_operations WHERE operation_id = ?", entry.getKey());
        if (entry.getValue()[0] == null) {
          continue;
        }
        run(
            c,
            "INSERT INTO app_generation_operations"
                + " SELECT * FROM json_populate_record(NULL::app_generation_operations, ?::json)",
            entry.getValue()[0]);
        run(
            c,
            "INSERT INTO app_generation_transitions"
                + " SELECT * FROM json_populate_recordset(NULL::app_generation_transitions, ?::json)",
            entry.getValue()[1]);
      }
      c.commit();
    }
  }

  private static String one(Connection c, String sql, String arg) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, arg);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static void run(Connection c, String sql, String arg) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, arg);
      s.executeUpdate();
    }
  }
}
