package com.genace.client.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/**
 * Why an operation waits for an operator. Stored as {@code review_reason} in the operations table
 * and carried in workflow payloads by its wire name ({@code post_outcome_unknown}, ...).
 */
public enum ReviewReason {
  /** The POST may have created a job: 5xx, timeout or reset after sending, malformed answer. */
  POST_OUTCOME_UNKNOWN,
  /** A dispatch lease expired while {@code submitting}: a POST may have left. */
  DISPATCH_INTERRUPTED,
  /** Several attempts provably sent nothing; an operator decides whether to keep trying. */
  DISPATCH_NOT_SENT_REPEATEDLY,
  /** Observation could not follow the remote job; what a review without a stored reason shows. */
  REMOTE_JOB_UNOBSERVABLE,
  /** Genace answered 404 for the durable remote job id. */
  REMOTE_JOB_NOT_FOUND,
  /** The operation was to be observed but no remote job id is recorded. */
  MISSING_REMOTE_JOB_ID,
  /** The worker drained while the POST was in flight. */
  DRAINED_DURING_POST,
  /**
   * The operation's workflow closed (terminated, timed out, reset) or vanished while its ledger row
   * was not terminal; found by the orphan sweeper.
   */
  WORKFLOW_CLOSED;

  /** The value stored in the table and sent in payloads. */
  @JsonValue
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a stored or received reason.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  @JsonCreator
  public static ReviewReason parse(String value) {
    for (ReviewReason reason : values()) {
      if (reason.wire().equals(value)) {
        return reason;
      }
    }
    throw new IllegalArgumentException(
        "unknown review reason '"
            + value
            + "'; expected one of "
            + Arrays.stream(values()).map(ReviewReason::wire).toList());
  }
}
