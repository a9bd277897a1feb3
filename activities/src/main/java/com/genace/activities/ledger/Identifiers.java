package com.genace.activities.ledger;

import com.genace.client.model.IdentifierRule;

/** The ledger's identifiers checked by {@link IdentifierRule}: a broken one throws. */
public final class Identifiers {

  public static final int MAX_LENGTH = IdentifierRule.MAX_LENGTH;

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
    IdentifierRule.problem(value, what)
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(problem);
            });
    return value;
  }
}
