package com.genace.ledger;

import com.genace.model.NextAction;
import javax.sql.DataSource;

/**
 * Left for {@code PollScheduleTest} alone, which is being changed elsewhere at the same time: the
 * helpers of {@link com.genace.testing.LedgerFixtures} over a ledger it was given. Every other test
 * registers that extension; delete this once {@code PollScheduleTest} does too.
 */
final class LedgerFixtures {

  static final String WORKER = com.genace.testing.LedgerFixtures.WORKER;

  private final com.genace.testing.LedgerFixtures fixtures;

  LedgerFixtures(OperationsLedger ledger, DataSource dataSource) {
    this.fixtures = com.genace.testing.LedgerFixtures.over(ledger, dataSource);
  }

  void pending(String operationId) {
    fixtures.pending(operationId);
  }

  Lease claim(String operationId, String owner, NextAction action) {
    return fixtures.claim(operationId, owner, action);
  }

  Lease submitting(String operationId) {
    return fixtures.submitting(operationId);
  }

  void observing(String operationId, String remoteJobId) {
    fixtures.observing(operationId, remoteJobId);
  }

  void expireLease(String operationId) {
    fixtures.expireLease(operationId);
  }

  void execute(String sql, String operationId) {
    fixtures.execute(sql, operationId);
  }
}
