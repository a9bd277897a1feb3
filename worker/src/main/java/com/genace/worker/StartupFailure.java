package com.genace.worker;

/**
 * A problem found at start that waiting will not fix (a refused credential, a missing namespace or
 * search attribute, an unreachable Temporal): the worker exits 1 with this one-line message.
 */
public class StartupFailure extends RuntimeException {

  public StartupFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
