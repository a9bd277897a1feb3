package com.genace.ops.dev;

/** The Temporal CLI is not installed and could not be installed; the message says what to do. */
final class TemporalCliUnavailableException extends RuntimeException {

  TemporalCliUnavailableException(PinnedTemporalCli pin, Exception cause) {
    super(
        "could not install the Temporal CLI ("
            + pin
            + "): "
            + (cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage())
            + ". Install it yourself (pip install "
            + pin.project()
            + "=="
            + pin.version()
            + ", or https://docs.temporal.io/cli) and set "
            + TemporalCliLocator.CLI_VARIABLE
            + " to it or put 'temporal' on the PATH; or run ./genace dev --test-server (no Web"
            + " UI)",
        cause);
  }
}
