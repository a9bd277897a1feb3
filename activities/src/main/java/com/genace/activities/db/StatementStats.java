package com.genace.activities.db;

import java.time.Duration;

/**
 * Where the SQL runner reports each statement it ran, by name: injected (a metrics registry in the
 * worker, nothing in tools and tests) rather than counted in global statics.
 */
@FunctionalInterface
public interface StatementStats {

  /** How a statement ended. */
  enum Outcome {
    OK,
    /** It gave up waiting for a lock or ran past its statement timeout. */
    CONTENTION,
    FAILED
  }

  StatementStats NONE = (statement, elapsed, outcome) -> {};

  void executed(String statement, Duration elapsed, Outcome outcome);
}
