package com.genace.activities.lifecycle;

import com.genace.workflows.lifecycle.SweepReport;

/**
 * Told of each orphan the sweeper put in review, and of what each sweep pass run by this process
 * did (the worker shows both on /status and in its metrics).
 */
@FunctionalInterface
public interface OrphanListener {

  OrphanListener NONE = (operationId, closeStatus) -> {};

  void orphanFound(String operationId, String closeStatus);

  /** A pass ended (at the end of the walk, at its bound, or overtaken by another pass). */
  default void passEnded(SweepReport report) {}
}
