package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.workflows.support.SavedHistories;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.RetryOptions;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replay compares the commands a workflow issues, not the options of the activities it schedules:
 * this test holds every activity in the saved histories to the queue, timeouts and retries {@link
 * ActivityStubs} gives its type, so that an option changed by accident fails the build.
 */
class ActivityStubsTest {

  /** The options each activity type is scheduled with. */
  private static final Map<String, ActivityOptions> OPTIONS_BY_TYPE =
      Map.ofEntries(
          Map.entry("Register", ActivityStubs.LEDGER_STEP),
          Map.entry("OpenReview", ActivityStubs.LEDGER_STEP),
          Map.entry("RecordResolution", ActivityStubs.LEDGER_STEP),
          Map.entry("EndCancelled", ActivityStubs.LEDGER_STEP),
          Map.entry("RequestCancel", ActivityStubs.LEDGER_STEP),
          Map.entry("GatherEvidence", ActivityStubs.EVIDENCE),
          Map.entry("GatherEvidenceAgain", ActivityStubs.EVIDENCE),
          Map.entry("CheckFoundJob", ActivityStubs.CHECK_JOB),
          Map.entry("Dispatch", ActivityStubs.DISPATCH),
          Map.entry("RegisterAndDispatch", ActivityStubs.DISPATCH),
          Map.entry("AwaitRemoteJob", ActivityStubs.AWAIT_REMOTE_JOB),
          Map.entry("Deliver", ActivityStubs.DELIVER));

  static List<Path> histories() throws Exception {
    return SavedHistories.all();
  }

  @ParameterizedTest
  @MethodSource("histories")
  void saved_activities_were_scheduled_with_the_current_options(Path history) throws Exception {
    List<HistoryEvent> events =
        WorkflowExecutionHistory.fromJson(SavedHistories.read(history)).getEvents();
    for (HistoryEvent event : events) {
      if (event.getEventType() != EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        continue;
      }
      ActivityTaskScheduledEventAttributes scheduled =
          event.getActivityTaskScheduledEventAttributes();
      String type = scheduled.getActivityType().getName();
      assertThat(OPTIONS_BY_TYPE).as("activity type of %s", history).containsKey(type);
      ActivityOptions options = OPTIONS_BY_TYPE.get(type);
      assertThat(scheduled.getTaskQueue().getName()).as(type).isEqualTo(options.getTaskQueue());
      if (type.equals("RegisterAndDispatch")) {
        assertThat(duration(scheduled.getScheduleToStartTimeout()))
            .as(type)
            .isEqualTo(ActivityStubs.FIRST_DISPATCH_WAIT);
      } else if (!type.equals("Dispatch")) {
        // The dispatch's start-to-close timeout comes with each request.
        assertThat(duration(scheduled.getStartToCloseTimeout()))
            .as(type)
            .isEqualTo(options.getStartToCloseTimeout());
      }
      assertThat(duration(scheduled.getHeartbeatTimeout()))
          .as(type)
          .isEqualTo(
              options.getHeartbeatTimeout() == null
                  ? Duration.ZERO
                  : options.getHeartbeatTimeout());
      assertRetries(type, scheduled.getRetryPolicy(), options.getRetryOptions());
    }
  }

  /** The server fills in what a policy leaves unset; what the policy sets must be what it got. */
  private static void assertRetries(
      String type, io.temporal.api.common.v1.RetryPolicy scheduled, RetryOptions options) {
    if (options.getInitialInterval() != null) {
      assertThat(duration(scheduled.getInitialInterval()))
          .as(type)
          .isEqualTo(options.getInitialInterval());
    }
    if (options.getBackoffCoefficient() != 0) {
      assertThat(scheduled.getBackoffCoefficient())
          .as(type)
          .isEqualTo(options.getBackoffCoefficient());
    }
    if (options.getMaximumInterval() != null) {
      assertThat(duration(scheduled.getMaximumInterval()))
          .as(type)
          .isEqualTo(options.getMaximumInterval());
    }
    assertThat(scheduled.getMaximumAttempts()).as(type).isEqualTo(options.getMaximumAttempts());
  }

  private static Duration duration(com.google.protobuf.Duration proto) {
    return Duration.ofSeconds(proto.getSeconds(), proto.getNanos());
  }
}
