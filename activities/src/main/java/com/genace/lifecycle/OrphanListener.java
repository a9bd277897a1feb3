package com.genace.lifecycle;

/**
 * Told of each orphan the sweeper put in review (the worker counts them for /status and metrics).
 */
@FunctionalInterface
public interface OrphanListener {

  OrphanListener NONE = (operationId, closeStatus) -> {};

  void orphanFound(String operationId, String closeStatus);
}
