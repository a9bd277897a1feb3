package com.genace.activities.db;

/**
 * A statement could not complete (database unreachable, timeout, constraint...). Each package that
 * talks to the database throws its own subclass, so that a caller can tell whose statement failed.
 */
public class DatabaseException extends RuntimeException {

  public DatabaseException(String message, Throwable cause) {
    super(message, cause);
  }

  public DatabaseException(String message) {
    super(message);
  }
}
