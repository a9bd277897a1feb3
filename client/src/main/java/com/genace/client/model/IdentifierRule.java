package com.genace.client.model;

import java.util.Optional;

/**
 * The one rule for the identifiers the ledger stores (operation ids, lease owners, remote job ids),
 * shared by the ledger and by the workflow's check of a resolution before it accepts it.
 */
public final class IdentifierRule {

  /** Long enough for UUIDs and composite keys, short enough to keep indexes and logs sane. */
  public static final int MAX_LENGTH = 200;

  private IdentifierRule() {}

  /**
   * @param what how the message names the value, e.g. {@code remote job id}
   * @return what is wrong with the value, if anything
   */
  public static Optional<String> problem(String value, String what) {
    if (value == null || value.isBlank()) {
      return Optional.of(what + " must not be blank");
    }
    if (value.length() > MAX_LENGTH) {
      return Optional.of(what + " is longer than " + MAX_LENGTH + " characters");
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      return Optional.of(what + " must not contain control characters");
    }
    return Optional.empty();
  }
}
