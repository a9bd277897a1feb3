package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.NextAction;
import com.genace.workflows.model.RemoteStatus;

/**
 * What observation and delivery write about the remote job; each a fenced write ({@link
 * FencedWrite}).
 */
final class RemoteJobWrites {

  private final Sql sql;

  RemoteJobWrites(Sql sql) {
    this.sql = sql;
  }

  /**
   * What a newer snapshot sets besides the phase it leads to ({@link Transitions#SNAPSHOT}),
   * whichever write records it (this one under the observe lease, or {@link
   * ObservationWrites#RECORD_OBSERVED_SNAPSHOT} in its place): the status, and a failed or canceled
   * job's reason. Reads {@code a.status}, {@code a.status_rank}, {@code a.snapshot} and {@code
   * a.failure}.
   */
  static final String SNAPSHOT_COLUMNS =
      """
      remote_status = a.status,
      remote_status_rank = a.status_rank,
      remote_snapshot = a.snapshot,
      remote_observed_at = clock_timestamp(),
      failure_reason = CASE WHEN a.status IN ('failed', 'canceled') THEN a.failure
                            ELSE o.failure_reason END
      """;

  /**
   * Mirrors a remote snapshot under an observe lease. A snapshot replaces the stored one only when
   * it ranks higher (queued 0 &lt; running 1 &lt; terminal 2), so a late queued or running snapshot
   * never replaces a terminal one. A terminal snapshot moves the operation on (succeeded →
   * delivering; failed or canceled → failed) and ends the lease. (A poll records its snapshot
   * without a lease: {@link ObservationWrites#RECORD_OBSERVED_SNAPSHOT}.)
   *
   * <p>History: a newer snapshot is a transition; the same status again is a quiet no-op; an older
   * or conflicting one leaves a {@code not_permitted} diagnostic row.
   */
  static final SqlStatement RECORD_SNAPSHOT =
      FencedWrite.named("record_snapshot")
          .action(NextAction.OBSERVE)
          .args(
              "details jsonb",
              "status text",
              "status_rank smallint",
              "snapshot jsonb",
              "failure text")
          .reading(
              "o.remote_status",
              """
              (%s
               AND coalesce(o.remote_status_rank, -1) < a.status_rank) AS newer"""
                  .formatted(Transitions.SNAPSHOT.permittedWhen()))
          .moves(Transitions.SNAPSHOT)
          .set(
              SNAPSHOT_COLUMNS
                  + """
              ,
              lease_owner = CASE WHEN a.status_rank = 2 THEN NULL ELSE o.lease_owner END,
              lease_until = CASE WHEN a.status_rank = 2 THEN NULL ELSE o.lease_until END,
              updated_at = clock_timestamp()
              """)
          .permittedWhen("coalesce(o.remote_status_rank, -1) < a.status_rank")
          .appliedOnlyIf("cur.newer")
          .quietWhen(
              """
              cur.fenced AND NOT cur.newer
                   AND cur.remote_status IS NOT DISTINCT FROM a.status""")
          .toStatement();

  FenceOutcome recordSnapshot(
      Lease lease, String details, RemoteStatus status, String snapshotJson, String failureReason) {
    return FencedWrite.write(
        sql,
        RECORD_SNAPSHOT,
        lease,
        p ->
            p.json(details) // transitions.details
                .text(status.wire()) // remote_status
                .integer(status.rank()) // remote_status_rank
                .json(snapshotJson) // remote_snapshot
                .text(failureReason)); // failure_reason (failed, canceled)
  }

  /** delivering → delivered: every artifact is in the store, the manifest says where. */
  static final SqlStatement RECORD_DELIVERED =
      FencedWrite.named("record_delivered")
          .action(NextAction.DELIVER)
          .args("details jsonb", "manifest jsonb")
          .moves(Transitions.DELIVERED_EVENT)
          .set(
              """
              delivery_manifest = a.manifest,
              lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
              """)
          .toStatement();

  FenceOutcome recordDelivered(Lease lease, String details, String manifestJson) {
    return FencedWrite.write(
        sql,
        RECORD_DELIVERED,
        lease,
        p ->
            p.json(details) // transitions.details
                .json(manifestJson)); // delivery_manifest
  }
}
