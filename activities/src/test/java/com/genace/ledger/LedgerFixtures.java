package com.genace.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.model.NextAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Puts operations into known states through the ledger's own API. */
final class LedgerFixtures {

  static final String WORKER = "worker-a";

  private final OperationsLedger ledger;
  private final DataSource dataSource;

  LedgerFixtures(OperationsLedger ledger, DataSource dataSource) {
    this.ledger = ledger;
    this.dataSource = dataSource;
  }

  void pending(String operationId) {
    assertThat(ledger.create(new NewOperation(operationId, "image-v1", "{\"prompt\":\"a fox\"}")))
        .isTrue();
  }

  Lease claim(String operationId, String owner, NextAction action) {
    ClaimResult result = ledger.claim(operationId, owner, action);
    assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
    return ((ClaimResult.Acquired) result).lease();
  }

  /** Pending, claimed for dispatch, marked submitting: a POST may be in flight. */
  Lease submitting(String operationId) {
    pending(operationId);
    Lease lease = claim(operationId, WORKER, NextAction.DISPATCH);
    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    return lease;
  }

  /** Accepted by Genace as {@code remoteJobId}, lease released, ready to observe. */
  void observing(String operationId, String remoteJobId) {
    Lease lease = submitting(operationId);
    assertThat(ledger.recordAccepted(lease, remoteJobId)).isEqualTo(WriteResult.APPLIED);
  }

  /** Moves the lease's expiry into the past: what waiting out the lease would do. */
  void expireLease(String operationId) {
    execute(
        "UPDATE app_generation_operations SET lease_until = clock_timestamp() - interval '1 ms'"
            + " WHERE operation_id = ? AND lease_until IS NOT NULL",
        operationId);
  }

  void execute(String sql, String operationId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, operationId);
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
