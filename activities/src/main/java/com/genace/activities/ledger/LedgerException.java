package com.genace.activities.ledger;

import com.genace.activities.db.DatabaseException;
import com.genace.activities.db.SqlStatement;
import java.sql.SQLException;

/** The ledger could not complete a statement (database unreachable, timeout, constraint...). */
public class LedgerException extends DatabaseException {

  public LedgerException(String message, Throwable cause) {
    super(message, cause);
  }

  public LedgerException(String message) {
    super(message);
  }

  /** The ledger's reading of a failed statement, for {@link com.genace.activities.db.Sql#as}. */
  static LedgerException of(SqlStatement statement, SQLException cause, boolean contention) {
    if (contention) {
      return new LedgerContentionException(
          "ledger statement "
              + statement.name()
              + " gave up waiting (lock or statement timeout): "
              + cause.getMessage(),
          cause);
    }
    return new LedgerException(
        "ledger statement " + statement.name() + " failed: " + cause.getMessage(), cause);
  }
}
