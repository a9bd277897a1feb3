package com.genace.worker;

import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refreshes the fleet-wide figures that {@code /status} and {@code /metrics} show: the ledger's,
 * and Temporal's view of the work that no worker has picked up yet; and checks that the artifact
 * store still answers (one bounded request), which readiness depends on.
 */
final class StatisticsLoop implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(StatisticsLoop.class);

  private final WorkerStack stack;

  StatisticsLoop(WorkerStack stack) {
    this.stack = stack;
  }

  @Override
  public void run() {
    try {
      stack.metrics.update(stack.statistics.read());
    } catch (RuntimeException e) {
      log.warn("could not read ledger statistics: {}", e.getMessage());
    }
    try {
      stack.state.artifactStore(stack.config.artifacts().problem(stack.artifacts));
    } catch (RuntimeException e) {
      stack.state.artifactStore(Optional.of(StartupChecks.rootMessage(e)));
    }
    try {
      boolean guarded = stack.ledger.approvers().anyRegistered();
      if (stack.state.spendingGuarded(guarded) && !guarded) {
        log.warn(
            "no approver registered: spending is unguarded (a not_submitted, which sends a second"
                + " paid POST, is accepted unsigned); ./genace ops approvers add NAME --key FILE");
      } else if (guarded) {
        log.debug("spending is guarded: not_submitted needs a signed approval");
      }
    } catch (RuntimeException e) {
      log.warn("could not read the approvers: {}", e.getMessage());
    }
    try {
      stack.state.heldAccounts(stack.ledger.accounts().restrictions().heldNow());
    } catch (RuntimeException e) {
      log.warn("could not read the accounts held after a 429: {}", e.getMessage());
    }
    try {
      stack.metrics.saturation(stack.saturation.read());
    } catch (RuntimeException e) {
      log.warn("could not read Temporal's backlog: {}", e.getMessage());
    }
  }
}
