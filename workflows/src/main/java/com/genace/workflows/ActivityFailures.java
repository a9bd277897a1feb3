package com.genace.workflows;

import io.temporal.failure.ActivityFailure;

/** How the workflow names a failed activity in logs, refusals and review details. */
final class ActivityFailures {

  private ActivityFailures() {}

  /** The failure's cause as {@code Type: message}, the activity's own failure when it has none. */
  static String describe(ActivityFailure failure) {
    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }
}
