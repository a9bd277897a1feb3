package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.workflows.model.RemoteStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;

/** What one status poll writes: a newer snapshot, without a lease held across the GET. */
final class ObservationWrites {

  private final Sql sql;

  ObservationWrites(Sql sql) {
    this.sql = sql;
  }

  /**
   * An observe claim, a fenced snapshot write and the release, in one statement. It applies exactly
   * when the claim would have acquired and the write been applied: the operation is {@code
   * observing} with next action {@code observe}, it still observes the remote job that was polled,
   * the snapshot ranks higher than the stored one (queued 0 &lt; running 1 &lt; terminal 2), and no
   * other owner holds a live lease (free, expired by {@code clock_timestamp()}, or ours). It then
   * writes what the fenced snapshot write does (succeeded → delivering; failed or canceled → failed
   * with the reason), under a new revision, leaving the lease free. A terminal snapshot also takes
   * the operation off the poll schedule ({@link PollSchedule}): nothing is left to poll.
   *
   * <p>Why this is as safe as claim → write → release: the fence exists so that no worker whose
   * lease went stale writes while another holds a live one. Here no lease is held across time at
   * all: the conditions are checked by the UPDATE on the row it has locked, against the latest
   * committed version (a concurrent claim or write is waited for and then re-checked), so no other
   * owner's live lease can exist between the check and the write. The new revision fences any
   * earlier lease of ours, as a claim's does, and a worker holding a lease that expired under it is
   * denied by the revision when it writes.
   *
   * <p>History: a recorded snapshot leaves the row a fenced snapshot write leaves (event {@code
   * snapshot}, the new revision, {@code {"status": …}}). A refusal leaves none, as a refused claim
   * left none, except a snapshot older than the stored one, which keeps the {@code not_permitted}
   * diagnostic the fenced write kept. {@code refusal} is read from the row as the statement began;
   * when that row would have allowed the write, the row changed during the lock wait ({@code
   * contended}).
   *
   * <p>The action comes from the {@code args} row, as in {@link FencedWrite#action}: with both
   * literals, PostgreSQL walked every observing operation through the unfinished index for each
   * poll (600 rows for one at a million ended operations), a cost growing with the observations in
   * flight.
   */
  static final SqlStatement RECORD_OBSERVED_SNAPSHOT =
      SqlStatement.of(
          "record_observed_snapshot",
          """
          WITH args AS (
            SELECT ?::text AS operation_id, ?::text AS owner, ?::text AS remote_job_id,
                   ?::jsonb AS details, ?::text AS status, ?::smallint AS status_rank,
                   ?::jsonb AS snapshot, ?::text AS failure, 'observe'::text AS action
          ),
          cur AS (
            SELECT o.*,
                   CASE WHEN o.phase <> 'observing' OR o.next_action <> 'observe' THEN 'moved_on'
                        WHEN o.lease_until > clock_timestamp()
                             AND o.lease_owner IS DISTINCT FROM a.owner THEN 'leased'
                        WHEN o.remote_job_id IS DISTINCT FROM a.remote_job_id THEN 'job_changed'
                        WHEN coalesce(o.remote_status_rank, -1) >= a.status_rank THEN 'not_newer'
                   END AS refusal
            FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id
          ),
          upd AS (
            UPDATE app_generation_operations o
            SET revision = o.revision + 1,
          %s,
          %s,
                lease_owner = NULL,
                lease_until = NULL,
                poll_due_at = CASE WHEN a.status_rank = 2 THEN NULL ELSE o.poll_due_at END,
                updated_at = clock_timestamp()
            FROM args a
            WHERE o.operation_id = a.operation_id
              AND %s AND o.next_action = a.action
              AND o.remote_job_id = a.remote_job_id
              AND coalesce(o.remote_status_rank, -1) < a.status_rank
              AND %s
            RETURNING o.operation_id, o.revision, o.phase
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)
            SELECT upd.operation_id, upd.revision, a.owner, 'snapshot', 'observing', upd.phase,
                   true, a.details
            FROM upd CROSS JOIN args a
            UNION ALL
            SELECT cur.operation_id, cur.revision, a.owner, 'snapshot', cur.phase, cur.phase,
                   false, a.details || '{"denied": "not_permitted"}'
            FROM cur CROSS JOIN args a
            WHERE cur.refusal = 'not_newer' AND cur.remote_status IS DISTINCT FROM a.status
              AND NOT EXISTS (SELECT 1 FROM upd)
          )
          SELECT cur.*, (SELECT count(*) FROM upd) AS applied,
                 (SELECT revision FROM upd) AS recorded_revision
          FROM cur
          """
              .formatted(
                  Transitions.SNAPSHOT.set(),
                  RemoteJobWrites.SNAPSHOT_COLUMNS.strip(),
                  Transitions.SNAPSHOT.permittedWhen(),
                  FencedWrite.leaseFreeOr("o.lease_owner = a.owner")));

  Optional<ObservedSnapshot> record(
      String operationId,
      String owner,
      String remoteJobId,
      String details,
      RemoteStatus status,
      String snapshotJson,
      String failureReason) {
    return sql.queryOne(
        RECORD_OBSERVED_SNAPSHOT,
        p ->
            p.text(operationId) // operation_id
                .text(owner) // lease_owner (its live lease does not block)
                .text(remoteJobId) // remote_job_id, as polled
                .json(details) // transitions.details
                .text(status.wire()) // remote_status
                .integer(status.rank()) // remote_status_rank
                .json(snapshotJson) // remote_snapshot
                .text(failureReason), // failure_reason (failed, canceled)
        ObservationWrites::outcome);
  }

  private static ObservedSnapshot outcome(ResultSet rs) throws SQLException {
    long applied = rs.getLong("applied");
    if (applied > 1) {
      throw new IllegalStateException("an observed snapshot changed " + applied + " rows");
    }
    if (applied == 1) {
      return new ObservedSnapshot.Recorded(rs.getLong("recorded_revision"));
    }
    String refusal = rs.getString("refusal");
    ObservedSnapshot.Reason reason =
        refusal == null
            ? ObservedSnapshot.Reason.CONTENDED
            : ObservedSnapshot.Reason.valueOf(refusal.toUpperCase(Locale.ROOT));
    return new ObservedSnapshot.Refused(reason, OperationRecords.row(rs));
  }
}
