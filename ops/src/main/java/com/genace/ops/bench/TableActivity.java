package com.genace.ops.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What the database did between two moments, so that a reader of a bench sees why a figure moved:
 * shared blocks touched per statement ({@code pg_stat_statements}: hits and reads, for the bench's
 * database), and for the operations table the share of its updates that were HOT (no index entry
 * written) and autovacuum's runs. Table counters come from the server's cumulative statistics,
 * which each backend reports within about a second of its work; statement counters are exact.
 *
 * <p>Without {@code pg_stat_statements} (a server that does not load it, or a user who may not
 * create the extension) the blocks are null.
 */
final class TableActivity {

  private static final String TABLE = "app_generation_operations";

  private static final String STATEMENTS =
      """
      SELECT coalesce(sum(calls), 0), coalesce(sum(shared_blks_hit + shared_blks_read), 0)
      FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      """;

  private static final String TABLE_STATS =
      """
      SELECT n_tup_upd, n_tup_hot_upd, autovacuum_count,
             extract(epoch FROM clock_timestamp() - last_autovacuum)
      FROM pg_stat_user_tables WHERE relid = '%s'::regclass
      """
          .formatted(TABLE);

  /** The counters at one moment. */
  record Snapshot(
      Long calls,
      Long blocks,
      long updates,
      long hotUpdates,
      long autovacuums,
      Double lastAutovacuumSecondsAgo) {}

  private TableActivity() {}

  static Snapshot now(DataSource dataSource) {
    boolean statementsReadable = StatementCounter.loaded(dataSource);
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      Long calls = null;
      Long blocks = null;
      if (statementsReadable) {
        try (ResultSet rs = statement.executeQuery(STATEMENTS)) {
          rs.next();
          calls = rs.getLong(1);
          blocks = rs.getLong(2);
        }
      }
      try (ResultSet rs = statement.executeQuery(TABLE_STATS)) {
        rs.next();
        double ago = rs.getDouble(4);
        return new Snapshot(
            calls, blocks, rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.wasNull() ? null : ago);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bench statistics unreadable: " + e.getMessage(), e);
    }
  }

  /**
   * From {@code before} to {@code after}: {@code shared_blocks_per_call}, {@code updates}, {@code
   * hot_update_share} (null without updates), {@code autovacuums} and {@code last_autovacuum_s_ago}
   * (at {@code after}; null if autovacuum never ran on the table).
   */
  static Map<String, Object> between(Snapshot before, Snapshot after) {
    Map<String, Object> figures = new LinkedHashMap<>();
    long calls = after.calls() == null ? 0 : after.calls() - before.calls();
    figures.put(
        "shared_blocks_per_call",
        calls > 0 ? Figures.round((after.blocks() - before.blocks()) / (double) calls) : null);
    long updates = after.updates() - before.updates();
    figures.put("updates", updates);
    figures.put(
        "hot_update_share",
        updates > 0
            ? Figures.round((after.hotUpdates() - before.hotUpdates()) / (double) updates)
            : null);
    figures.put("autovacuums", after.autovacuums() - before.autovacuums());
    figures.put(
        "last_autovacuum_s_ago",
        after.lastAutovacuumSecondsAgo() == null
            ? null
            : Figures.round(after.lastAutovacuumSecondsAgo()));
    return figures;
  }
}
