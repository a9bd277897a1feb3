package com.genace.worker;

import com.genace.worker.health.Readiness;
import com.genace.worker.temporal.PollWatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps readiness true to the facts, every second: reads the fleet's switches from the ledger (the
 * pause and the current configuration version, which also proves the ledger answers) and the
 * allowance's use, notes whether Temporal accepts this worker's task polls, and suspends or resumes
 * the dispatch queue's task polls to match.
 */
final class ReadinessLoop implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(ReadinessLoop.class);

  private final WorkerStack stack;

  ReadinessLoop(WorkerStack stack) {
    this.stack = stack;
  }

  @Override
  public void run() {
    try {
      checkLedger();
      stack.state.temporalPolls(stack.taskPolls.failing().map(PollWatch.Failure::summary));
      Readiness readiness = stack.state.readiness();
      if (readiness.acceptingDispatch() && stack.dispatchWorker.isSuspended()) {
        stack.dispatchWorker.resumePolling();
        log.info("task polls of the dispatch queue resumed");
      } else if (!readiness.acceptingDispatch() && !stack.dispatchWorker.isSuspended()) {
        // A task poll already waiting on the server may still bring one task: the dispatch gate
        // (WorkerState.closedReason) stops its POST.
        stack.dispatchWorker.suspendPolling();
        log.info("task polls of the dispatch queue suspended: {}", readiness.reason());
      }
    } catch (RuntimeException e) {
      log.warn("readiness refresh failed: {}", e.getMessage());
    }
  }

  /** Reads the fleet's pause and configuration version, and the allowance's use. */
  void checkLedger() {
    try {
      stack.state.ledgerChecked(stack.controls.dispatchPause(), stack.fleet.current());
      stack.metrics.allowanceUsage(stack.allowance.usage());
    } catch (RuntimeException e) {
      stack.state.ledgerFailed(StartupChecks.rootMessage(e));
    }
  }
}
