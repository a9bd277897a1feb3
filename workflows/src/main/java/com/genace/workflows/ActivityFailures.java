package com.genace.workflows;

import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;

/** How the workflow reads a failed activity, and names it in logs, refusals and review details. */
final class ActivityFailures {

  private ActivityFailures() {}

  /** The failure's cause as {@code Type: message}, the activity's own failure when it has none. */
  static String describe(ActivityFailure failure) {
    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  /** Whether the activity threw an {@link ApplicationFailure} of {@code type}. */
  static boolean isType(ActivityFailure failure, String type) {
    return failure.getCause() instanceof ApplicationFailure app && type.equals(app.getType());
  }

  /** Whether no worker ever started the activity: it timed out waiting in its queue. */
  static boolean neverStarted(ActivityFailure failure) {
    return failure.getCause() instanceof TimeoutFailure timeout
        && timeout.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }
}
