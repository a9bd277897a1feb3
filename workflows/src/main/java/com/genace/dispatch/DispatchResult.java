package com.genace.dispatch;

/**
 * One dispatch attempt's result. {@code remoteJobId} is set for {@code ACCEPTED}, and for {@code
 * UNKNOWN} when Genace answered but the answer could not be recorded (evidence for the review).
 */
public record DispatchResult(
    DispatchOutcome outcome, String remoteJobId, String detail, long retryAfterMillis) {

  public static DispatchResult of(DispatchOutcome outcome, String detail) {
    return new DispatchResult(outcome, null, detail, 0);
  }
}
