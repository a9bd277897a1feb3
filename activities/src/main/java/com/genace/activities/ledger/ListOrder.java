package com.genace.activities.ledger;

/** The order of {@code ops list}: by creation time, then operation id. */
public enum ListOrder {
  NEWEST_FIRST,
  OLDEST_FIRST
}
