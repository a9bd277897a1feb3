package db.migration;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Gives every ledger row a {@code phase_since}. V13 added the column and its trigger sets it on
 * every insert and phase change, but rows already in flight then kept NULL until their next phase
 * change, and an ended row never changes phase again: retention (V15's index on {@code
 * phase_since}) never deletes it. Those rows take their {@code updated_at}, the time readers used
 * in its place.
 *
 * <p>A Java migration in Flyway's own package ({@code db.migration}, beside the scripts), because a
 * backfill must not run as one statement on a live ledger (docs/upgrading.md): outside Flyway's
 * transaction, in batches of {@value #BATCH} rows, each batch its own short transaction that skips
 * rows another session holds (a later batch takes them). Run again after a failure, it goes on
 * where it stopped.
 */
public class V16__Phase_since_for_every_row extends BaseJavaMigration {

  static final int BATCH = 1_000;

  private static final String FILL_BATCH =
      """
      UPDATE app_generation_operations
      SET phase_since = updated_at
      WHERE operation_id IN (
          SELECT operation_id FROM app_generation_operations
          WHERE phase_since IS NULL
          LIMIT ?
          FOR UPDATE SKIP LOCKED)
      """;

  private static final String ANY_LEFT =
      "SELECT EXISTS (SELECT 1 FROM app_generation_operations WHERE phase_since IS NULL)";

  @Override
  public boolean canExecuteInTransaction() {
    return false;
  }

  @Override
  public void migrate(Context context) throws SQLException {
    Connection connection = context.getConnection();
    try (PreparedStatement fill = connection.prepareStatement(FILL_BATCH);
        PreparedStatement anyLeft = connection.prepareStatement(ANY_LEFT)) {
      fill.setInt(1, BATCH);
      while (true) {
        int filled = fill.executeUpdate();
        if (!connection.getAutoCommit()) {
          connection.commit();
        }
        if (filled == 0 && !left(anyLeft)) {
          return;
        }
        if (filled == 0) {
          pause(); // every row left is held by another session for now
        }
      }
    }
  }

  private static boolean left(PreparedStatement anyLeft) throws SQLException {
    try (ResultSet rs = anyLeft.executeQuery()) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private static void pause() throws SQLException {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while rows were held by other sessions", e);
    }
  }
}
