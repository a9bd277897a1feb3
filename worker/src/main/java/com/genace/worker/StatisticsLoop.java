package com.genace.worker;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refreshes the fleet-wide figures that {@code /status} and {@code /metrics} show: the ledger's,
 * and Temporal's view of the work that no worker has picked up yet.
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
      stack.metrics.saturation(stack.saturation.read());
    } catch (RuntimeException e) {
      log.warn("could not read Temporal's backlog: {}", e.getMessage());
    }
  }
}
