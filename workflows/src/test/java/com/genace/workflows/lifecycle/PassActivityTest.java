package com.genace.workflows.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replay compares commands, not the options of the activities they schedule: this holds the saved
 * passes' activities to {@link PassActivity}'s queue, timeouts and retries.
 */
class PassActivityTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/sweep-histories/sweep-found-one-orphan.json",
        "/retention-histories/retention-deleted-one.json"
      })
  void saved_passes_scheduled_their_activity_with_the_current_options(String resource)
      throws Exception {
    Path history = Path.of(PassActivityTest.class.getResource(resource).toURI());
    List<ActivityTaskScheduledEventAttributes> scheduled =
        WorkflowExecutionHistory.fromJson(Files.readString(history)).getEvents().stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
            .map(HistoryEvent::getActivityTaskScheduledEventAttributes)
            .toList();
    ActivityOptions options = PassActivity.options("any summary");

    assertThat(scheduled).hasSize(1);
    ActivityTaskScheduledEventAttributes activity = scheduled.get(0);
    assertThat(activity.getTaskQueue().getName()).isEqualTo(options.getTaskQueue());
    assertThat(duration(activity.getStartToCloseTimeout()))
        .isEqualTo(options.getStartToCloseTimeout());
    assertThat(duration(activity.getHeartbeatTimeout())).isEqualTo(options.getHeartbeatTimeout());
    assertThat(duration(activity.getRetryPolicy().getInitialInterval()))
        .isEqualTo(options.getRetryOptions().getInitialInterval());
    assertThat(activity.getRetryPolicy().getMaximumAttempts())
        .isEqualTo(options.getRetryOptions().getMaximumAttempts());
  }

  private static Duration duration(com.google.protobuf.Duration proto) {
    return Duration.ofSeconds(proto.getSeconds(), proto.getNanos());
  }
}
