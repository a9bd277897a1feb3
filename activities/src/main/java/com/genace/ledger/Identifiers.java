package com.genace.ledger;

/** Validation of the identifiers the ledger accepts, with messages that say what is wrong. */
public final class Identifiers {

  /** Long enough for UUIDs and composite keys, short enough to keep indexes and logs sane. */
  public static final int MAX_LENGTH = 200;

  private Identifiers() {}

  public static String requireOperationId(String operationId) {
    return require(operationId, "operation id");
  }

  public static String requireOwner(String owner) {
    return require(owner, "lease owner");
  }

  public static String requireRemoteJobId(String remoteJobId) {
    return require(remoteJobId, "remote job id");
  }

  private static String require(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(what + " is longer than " + MAX_LENGTH + " characters");
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(what + " must not contain control characters");
    }
    return value;
  }
}
