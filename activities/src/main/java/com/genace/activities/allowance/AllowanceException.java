package com.genace.activities.allowance;

import com.genace.activities.db.DatabaseException;
import com.genace.activities.db.SqlStatement;
import java.sql.SQLException;

/** The allowance could not be read or changed; the dispatch that asked must not send. */
public class AllowanceException extends DatabaseException {

  public AllowanceException(String message, Throwable cause) {
    super(message, cause);
  }

  static AllowanceException of(SqlStatement statement, SQLException cause, boolean contention) {
    return new AllowanceException(
        "allowance statement "
            + statement.name()
            + (contention ? " gave up waiting (lock or statement timeout): " : " failed: ")
            + cause.getMessage(),
        cause);
  }
}
