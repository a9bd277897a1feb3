package com.genace.activities.db;

/** A schema migration could not be applied; the message names the script and the cause. */
public final class MigrationException extends DatabaseException {

  public MigrationException(String message, Throwable cause) {
    super(message, cause);
  }
}
