package com.genace.client.connection;

/** The Temporal server could not be reached or did not answer in time. */
public class TemporalUnavailableException extends RuntimeException {

  public TemporalUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
