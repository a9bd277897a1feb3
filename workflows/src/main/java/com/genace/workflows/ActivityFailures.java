package com.genace.workflows;

import com.genace.client.model.Phase;
import com.genace.workflows.model.FailureTypes;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TimeoutFailure;
import java.util.Optional;

/** How the workflow reads a failed activity, and names it in logs, refusals and review details. */
final class ActivityFailures {

  private ActivityFailures() {}

  /** The failure's cause as {@code Type: message}, the activity's own failure when it has none. */
  static String describe(ActivityFailure failure) {
    Throwable cause = failure.getCause() == null ? failure : failure.getCause();
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  /**
   * The phase the ledger shows the operation ended in, when a ledger step failed because it had
   * ({@link FailureTypes#OPERATION_ENDED}).
   */
  static Optional<Phase> endedInLedger(ActivityFailure failure) {
    if (!isType(failure, FailureTypes.OPERATION_ENDED)) {
      return Optional.empty();
    }
    ApplicationFailure ended = (ApplicationFailure) failure.getCause();
    return Optional.of(Phase.parse(ended.getDetails().get(0, String.class, String.class)));
  }

  /** Whether the activity threw an {@link ApplicationFailure} of {@code type}. */
  static boolean isType(ActivityFailure failure, String type) {
    return failure.getCause() instanceof ApplicationFailure app && type.equals(app.getType());
  }

  /**
   * Whether a cancel request cancelled the activity before any worker started it. Only for
   * activities that never heartbeat (dispatch): those cannot learn of a cancel once started, so
   * they report their own outcome instead.
   */
  static boolean cancelledBeforeStart(ActivityFailure failure) {
    return failure.getCause() instanceof CanceledFailure;
  }

  /** Whether no worker ever started the activity: it timed out waiting in its queue. */
  static boolean neverStarted(ActivityFailure failure) {
    return failure.getCause() instanceof TimeoutFailure timeout
        && timeout.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }
}
