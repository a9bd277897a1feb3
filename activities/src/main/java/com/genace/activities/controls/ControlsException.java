package com.genace.activities.controls;

import com.genace.activities.db.DatabaseException;
import com.genace.activities.db.SqlStatement;
import java.sql.SQLException;

/** A fleet-wide switch could not be read or changed. */
public class ControlsException extends DatabaseException {

  public ControlsException(String message, Throwable cause) {
    super(message, cause);
  }

  public static ControlsException of(
      SqlStatement statement, SQLException cause, boolean contention) {
    return new ControlsException(
        "controls statement "
            + statement.name()
            + (contention ? " gave up waiting (lock or statement timeout): " : " failed: ")
            + cause.getMessage(),
        cause);
  }
}
