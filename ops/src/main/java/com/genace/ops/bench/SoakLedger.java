package com.genace.ops.bench;

import com.genace.activities.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * {@code bench soak}'s rows in the ledger, written in bulk ({@code INSERT ... SELECT
 * generate_series}) under a per-run prefix and deleted afterwards: the unfinished operations the
 * hot statements work on, and the ended ones that make the ledger months old.
 */
final class SoakLedger {

  /** Ended operations per statement while the ledger grows. */
  static final int CHUNK = 100_000;

  private final DataSource db;
  private final Consumer<String> progress;
  private final String prefix = "soak-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  SoakLedger(DataSource db, Consumer<String> progress) {
    this.db = db;
    this.progress = progress;
  }

  /** What every row of this run's operation ids starts with. */
  String prefix() {
    return prefix;
  }

  /**
   * Reviews (half), observing operations on the poll schedule (30 %) and pending ones (20 %),
   * created over the last 30 days, each with a few history rows.
   */
  void unfinished() {
    execute(
        """
        INSERT INTO app_generation_operations
            (operation_id, phase, next_action, model, request, account, remote_job_id,
             review_reason, review_opened_at, poll_due_at, created_at, phase_since, updated_at)
        SELECT '%1$su-' || g, p.phase, p.action, 'image-v1', '{"prompt":"soak"}'::jsonb,
               'soak-account', CASE WHEN p.phase <> 'pending' THEN 'gen_%1$su-' || g END,
               CASE WHEN p.phase = 'in_review' THEN 'dispatch_unknown' END,
               CASE WHEN p.phase = 'in_review' THEN t.at END,
               CASE WHEN p.phase = 'observing' THEN clock_timestamp() + interval '1 hour' END,
               t.at, t.at, t.at
        FROM generate_series(0, %2$d - 1) g
        CROSS JOIN LATERAL (SELECT CASE WHEN g %% 10 < 5 THEN 'in_review'
                                        WHEN g %% 10 < 8 THEN 'observing'
                                        ELSE 'pending' END AS phase) q
        CROSS JOIN LATERAL (SELECT q.phase,
                                   CASE q.phase WHEN 'in_review' THEN 'reconcile'
                                                WHEN 'observing' THEN 'observe'
                                                ELSE 'dispatch' END AS action) p
        CROSS JOIN LATERAL (SELECT clock_timestamp()
                                   - (g::double precision / %2$d) * interval '30 days' AS at) t
        """
            .formatted(prefix, SoakBench.UNFINISHED));
    execute(
        """
        INSERT INTO app_generation_transitions
            (operation_id, revision, owner, event, from_phase, to_phase, accepted, at)
        SELECT '%1$su-' || g, r, 'soak', 'created', NULL, 'pending', true, clock_timestamp()
        FROM generate_series(0, %2$d - 1) g CROSS JOIN generate_series(1, 3) r
        """
            .formatted(prefix, SoakBench.UNFINISHED));
  }

  /**
   * Adds ended operations {@code from} .. {@code to - 1}, in chunks, each chunk one statement per
   * table; their ends are spread evenly over the last 30 days whatever the size, oldest first, as a
   * ledger fills in time order (its history rows lie in the order they were written).
   */
  long addEnded(long from, long to) {
    for (long start = from; start < to; start += CHUNK) {
      long end = Math.min(to, start + CHUNK);
      String ended =
          """
          SELECT g,
                 CASE WHEN g %% 100 < 90 THEN 'delivered' WHEN g %% 100 < 97 THEN 'failed'
                      ELSE 'abandoned' END AS phase,
                 CASE WHEN g %% 100 < 90 THEN 7 WHEN g %% 100 < 97 THEN 4 ELSE 5 END AS history,
                 clock_timestamp() - (%3$d - 1 - g)::double precision / (%3$d - %4$d)
                     * interval '30 days' AS ended_at
          FROM generate_series(%1$d::bigint, %2$d::bigint - 1) g
          """
              .formatted(start, end, to, from);
      execute(
          """
          INSERT INTO app_generation_operations
              (operation_id, phase, next_action, model, request, account, remote_job_id,
               delivery_manifest, failure_reason, created_at, phase_since, updated_at)
          SELECT '%1$se-' || e.g, e.phase, 'none', 'image-v1', '{"prompt":"soak"}'::jsonb,
                 'soak-account-' || (e.g %% 50), 'gen_%1$se-' || e.g,
                 CASE WHEN e.phase = 'delivered' THEN '{"artifacts":[]}'::jsonb END,
                 CASE WHEN e.phase <> 'delivered' THEN 'soak' END,
                 e.ended_at - interval '2 minutes', e.ended_at, e.ended_at
          FROM (%2$s) e
          """
              .formatted(prefix, ended));
      execute(
          """
          INSERT INTO app_generation_transitions
              (operation_id, revision, owner, event, from_phase, to_phase, accepted, details, at)
          SELECT '%1$se-' || e.g, r, 'soak', 'snapshot', 'observing', 'observing', true,
                 '{"status":"running"}'::jsonb, e.ended_at - (e.history - r) * interval '10 s'
          FROM (%2$s) e CROSS JOIN LATERAL generate_series(1, e.history) r
          """
              .formatted(prefix, ended));
      execute(
          """
          INSERT INTO app_dispatch_reservations
              (operation_id, account, credits, state, reserved_at, settled_at)
          SELECT '%1$se-' || e.g, 'soak-account-' || (e.g %% 50), 1,
                 CASE WHEN e.phase = 'failed' THEN 'released' ELSE 'spent' END,
                 e.ended_at - interval '2 minutes', e.ended_at - interval '110 seconds'
          FROM (%2$s) e
          """
              .formatted(prefix, ended));
      execute(
          """
          INSERT INTO app_review_evidence (operation_id, evidence, summary, gathered_at)
          SELECT '%1$se-' || e.g, '{"jobs":[]}'::jsonb, 'soak', e.ended_at - interval '1 minute'
          FROM (%2$s) e WHERE e.phase = 'abandoned'
          """
              .formatted(prefix, ended));
    }
    return to;
  }

  /**
   * What autovacuum would have done to a ledger that grew over months, and a {@code CHECKPOINT}:
   * the bulk insert's pending work does not weigh on the figures that follow.
   */
  void settle() {
    for (String table :
        List.of(
            "app_generation_operations",
            "app_generation_transitions",
            "app_dispatch_reservations",
            "app_review_evidence")) {
      execute("VACUUM ANALYZE " + table);
    }
    checkpoint();
  }

  /**
   * Writes out what the bulk insert left dirty, so that its writes do not weigh on the figures that
   * follow (a ledger that grew over months has none pending). Needs a superuser (the embedded
   * server's); elsewhere the figures carry the background writer's work.
   */
  private void checkpoint() {
    try {
      execute("CHECKPOINT");
    } catch (IllegalStateException e) {
      progress.accept("no CHECKPOINT (" + e.getMessage() + "); the figures carry its writes");
    }
  }

  /** The ids of this run's unfinished operations in {@code phase}, in order. */
  List<String> unfinishedIds(String phase) {
    List<String> ids = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT operation_id FROM app_generation_operations WHERE phase = '"
                    + phase
                    + "' AND operation_id LIKE '"
                    + prefix
                    + "u-%' ORDER BY operation_id")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bench query failed: " + e.getMessage(), e);
    }
    return ids;
  }

  /**
   * Makes one of this run's observing operations due for a status poll, an hour late: the oldest
   * due entry of the poll schedule, which {@code claim_due_polls} then takes (in a scratch ledger,
   * where no other poll is that late). It forgets the remote status seen, so that the round's
   * snapshot is newer and recorded.
   */
  void makeDue(String operationId) {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE app_generation_operations SET poll_due_at = clock_timestamp()"
                    + " - interval '1 hour', remote_status = NULL, remote_status_rank = NULL"
                    + " WHERE operation_id = ? AND phase = 'observing'")) {
      s.setString(1, operationId);
      if (s.executeUpdate() != 1) {
        throw new IllegalStateException("the bench's " + operationId + " is not observing");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bench query failed: " + e.getMessage(), e);
    }
  }

  /** Every history row in the ledger, the bench's and any other. */
  long transitions() {
    return count("SELECT count(*) FROM app_generation_transitions");
  }

  void cleanUp() {
    progress.accept("removing the bench's rows");
    try {
      for (String table :
          List.of(
              "app_generation_transitions",
              "app_dispatch_reservations",
              "app_review_evidence",
              "app_generation_operations")) {
        execute("DELETE FROM " + table + " WHERE operation_id LIKE '" + prefix + "%'");
      }
    } catch (RuntimeException e) {
      progress.accept("could not remove the bench's rows (prefix " + prefix + "): " + e);
    }
  }

  private long count(String sql) {
    return BenchSql.count(db, sql);
  }

  /** The bench's own setup statements; the prefix is generated here, never from input. */
  private void execute(String sql) {
    try (Connection c = db.getConnection()) {
      // Seeding and VACUUM take longer than the pool's statement timeout, which is the ledger's.
      try (Statement s = c.createStatement()) {
        s.execute("SET statement_timeout = 0");
        try {
          s.execute(sql);
        } finally {
          s.execute(
              "SET statement_timeout = " + DatabaseConfig.DEFAULT_STATEMENT_TIMEOUT.toMillis());
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bench setup failed: " + e.getMessage(), e);
    }
  }
}
