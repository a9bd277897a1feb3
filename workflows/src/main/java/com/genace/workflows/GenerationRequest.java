package com.genace.workflows;

import java.time.Duration;

/**
 * What an application asks for: an operation id of its own, a model and a JSON input object.
 *
 * @param dispatchTimeoutSeconds how long the POST may take before its outcome counts as unknown
 *     (and goes to review); null for {@link #DEFAULT_DISPATCH_TIMEOUT}
 * @param account whose spending allowance the operation draws on; null for {@link #DEFAULT_ACCOUNT}
 */
public record GenerationRequest(
    String operationId,
    String model,
    String inputJson,
    Integer dispatchTimeoutSeconds,
    String account) {

  public static final String DEFAULT_ACCOUNT = "default";

  public static final Duration DEFAULT_DISPATCH_TIMEOUT = Duration.ofMinutes(2);
  public static final Duration MIN_DISPATCH_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration MAX_DISPATCH_TIMEOUT = Duration.ofMinutes(30);

  public GenerationRequest(String operationId, String model, String inputJson) {
    this(operationId, model, inputJson, null, null);
  }

  public GenerationRequest(
      String operationId, String model, String inputJson, Integer dispatchTimeoutSeconds) {
    this(operationId, model, inputJson, dispatchTimeoutSeconds, null);
  }

  /** The account, or {@link #DEFAULT_ACCOUNT}. */
  public String accountOrDefault() {
    return account == null || account.isBlank() ? DEFAULT_ACCOUNT : account;
  }

  /** The dispatch activity's start-to-close timeout. */
  public Duration dispatchTimeout() {
    return dispatchTimeoutSeconds == null
        ? DEFAULT_DISPATCH_TIMEOUT
        : Duration.ofSeconds(dispatchTimeoutSeconds);
  }
}
