package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operations that wait too long in a phase, and why a delivery failed: bookkeeping columns of the
 * operation row (V13), written without a revision or a history row, like the poll schedule's.
 *
 * <p>The ERROR line "waits too long" comes from this class's logger ({@code
 * com.genace.activities.ledger.WaitingTooLong}), once per operation and phase: the statement that
 * sets {@code too_long_reported_at} is the one whose caller logs, and only when it changed the row,
 * so two workers (or a retry after a restart) never both log it. A phase change clears the mark
 * (the row rules' trigger), so an operation that waited too long observing can be reported again
 * delivering.
 */
final class WaitingTooLong {

  static final Logger log = LoggerFactory.getLogger(WaitingTooLong.class);

  /** What the ERROR line says about one operation. */
  record Report(
      String operationId,
      Phase phase,
      Optional<String> remoteJobId,
      Instant since,
      Duration waited,
      Optional<String> deliveryFailure) {}

  private final Sql sql;

  WaitingTooLong(Sql sql) {
    this.sql = sql;
  }

  /**
   * Marks the operation reported when it is still in {@code phase}, entered at least {@code limit}
   * ago by the database clock, and not reported in this phase yet. By primary key; a heap-only
   * update (no indexed column, no column the row rules read).
   */
  static final SqlStatement REPORT =
      SqlStatement.of(
          "report_waiting_too_long",
          """
          UPDATE app_generation_operations
          SET too_long_reported_at = clock_timestamp()
          WHERE operation_id = ? AND phase = ? AND too_long_reported_at IS NULL
            AND phase_since <= clock_timestamp() - ?::interval
          RETURNING operation_id, phase, remote_job_id, delivery_failure,
                    phase_since AS since,
                    extract(epoch FROM clock_timestamp() - phase_since)
                        AS waited_seconds
          """);

  Optional<Report> report(String operationId, Phase phase, Duration limit) {
    return sql.queryOne(
        REPORT,
        p ->
            p.text(operationId) // operation_id
                .text(phase.wire()) // phase
                .interval(limit), // clock_timestamp() - phase_since
        rs ->
            new Report(
                rs.getString("operation_id"),
                Phase.parse(rs.getString("phase")),
                Sql.text(rs, "remote_job_id"),
                Sql.instant(rs, "since").orElseThrow(),
                Duration.ofMillis(Math.round(rs.getDouble("waited_seconds") * 1000)),
                Sql.text(rs, "delivery_failure")));
  }

  /**
   * The last failed delivery attempt's reason, under the deliver lease that made the attempt (owner
   * and revision; a lease that expired since still names the attempt that failed, and one taken
   * over has another revision). No new revision: it changes no state.
   */
  static final SqlStatement DELIVERY_FAILED =
      SqlStatement.of(
          "record_delivery_failure",
          """
          UPDATE app_generation_operations
          SET delivery_failure = ?, delivery_failed_at = clock_timestamp()
          WHERE operation_id = ? AND lease_owner = ? AND revision = ?
            AND next_action = 'deliver'
          """);

  boolean deliveryFailed(Lease lease, String reason) {
    return sql.update(
            DELIVERY_FAILED,
            p -> FencedWrite.bindLease(p.text(reason), lease, false)) // delivery_failure, lease
        == 1;
  }

  static void logReport(Report report, Duration limit) {
    log.error(
        "operation {} has been {} for {} (since {}), longer than the limit of {}{}{}; it is still"
            + " retried; see ./genace ops show {}",
        report.operationId(),
        report.phase().wire(),
        human(report.waited()),
        report.since(),
        human(limit),
        report.remoteJobId().map(id -> "; remote job " + id).orElse(""),
        report.deliveryFailure().map(f -> "; last delivery failure: " + f).orElse(""),
        report.operationId());
  }

  /** {@code 6h 12m 3s}, {@code 45m}, {@code 0s}. */
  static String human(Duration duration) {
    long seconds = Math.max(0, duration.toSeconds());
    StringBuilder text = new StringBuilder();
    if (seconds >= 3600) {
      text.append(seconds / 3600).append("h ");
    }
    if (seconds % 3600 >= 60) {
      text.append(seconds % 3600 / 60).append("m ");
    }
    if (seconds % 60 != 0 || text.length() == 0) {
      text.append(seconds % 60).append("s");
    }
    return text.toString().trim();
  }
}
