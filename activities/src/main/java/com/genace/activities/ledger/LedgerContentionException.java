package com.genace.activities.ledger;

/** A statement gave up waiting for a row lock or ran past its statement timeout. */
public class LedgerContentionException extends LedgerException {

  public LedgerContentionException(String message, Throwable cause) {
    super(message, cause);
  }
}
