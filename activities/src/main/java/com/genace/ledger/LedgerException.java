package com.genace.ledger;

/** The ledger could not complete a statement (database unreachable, timeout, constraint...). */
public class LedgerException extends RuntimeException {

  public LedgerException(String message, Throwable cause) {
    super(message, cause);
  }

  public LedgerException(String message) {
    super(message);
  }
}
