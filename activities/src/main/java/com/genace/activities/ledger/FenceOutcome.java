package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * What one fenced write statement reports: whether the operation exists, whether the lease fence
 * held (same owner, revision and action, unexpired by the database's wall clock), and how many rows
 * the write changed: 0 = denied or not permitted, 1 = done, more = a bug.
 */
record FenceOutcome(boolean found, boolean fenced, long applied, Optional<Instant> leaseUntil) {

  static FenceOutcome read(ResultSet rs) throws SQLException {
    return new FenceOutcome(
        rs.getLong("found") == 1,
        rs.getBoolean("fenced"),
        rs.getLong("applied"),
        Sql.instant(rs, "lease_until"));
  }

  /**
   * @throws UnknownOperationException if the operation does not exist
   * @throws IllegalStateException if the write changed more than one row
   */
  WriteResult result(String write, Lease lease) {
    if (!found) {
      throw new UnknownOperationException(lease.operationId());
    }
    if (applied > 1) {
      throw new IllegalStateException(
          write + " changed " + applied + " rows of " + lease.operationId());
    }
    if (applied == 1) {
      return WriteResult.APPLIED;
    }
    return fenced ? WriteResult.UNCHANGED : WriteResult.DENIED;
  }
}
