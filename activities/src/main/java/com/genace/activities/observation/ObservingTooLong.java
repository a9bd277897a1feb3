package com.genace.activities.observation;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WaitLimits;
import com.genace.client.model.Phase;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ERROR line of an operation that has observed longer than the limit (a render that never
 * finishes), once per operation ({@link OperationsLedger#reportWaitingTooLong}). Every observing
 * operation passes here at each of a poll loop's polls; the claimed row says whether it was
 * reported already, so the others cost no statement.
 */
final class ObservingTooLong {

  private static final Logger log = LoggerFactory.getLogger(ObservingTooLong.class);

  private final OperationsLedger ledger;
  private final WaitLimits limits;
  private final Clock clock;

  /**
   * @param clock this process's clock, for the check that spares the statement for every other poll
   *     (the statement itself decides by the database's)
   */
  ObservingTooLong(OperationsLedger ledger, WaitLimits limits, Clock clock) {
    this.ledger = ledger;
    this.limits = limits;
    this.clock = clock;
  }

  /** Reports the operation {@code row} shows if it is due; never throws. */
  void reportIfDue(OperationRow row) {
    if (row.phase() != Phase.OBSERVING
        || !OperationsLedger.mayWaitTooLong(row, limits.observing(), clock.instant())) {
      return;
    }
    try {
      ledger.reportWaitingTooLong(row.operationId(), Phase.OBSERVING, limits.observing());
    } catch (RuntimeException e) {
      // The poll matters more; the next one tries again.
      log.warn("could not report that {} observes too long: {}", row.operationId(), e.toString());
    }
  }
}
