package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays saved histories of every path (delivered, refused, refused for the account, not sent,
 * rate limited, each review resolution, dispatch timeout) against the current workflow code: a
 * change that would break running workflows fails here. The histories are recorded by the worker
 * module's end-to-end tests with {@code -Dgenace.recordHistories=<this
 * module>/src/test/resources/histories}.
 */
class GenerationWorkflowReplayTest {

  static List<Path> histories() throws IOException, URISyntaxException {
    Path directory = Path.of(GenerationWorkflowReplayTest.class.getResource("/histories").toURI());
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    }
  }

  @ParameterizedTest
  @MethodSource("histories")
  void saved_history_replays_against_the_current_workflow_code(Path history) throws Exception {
    WorkflowReplayer.replayWorkflowExecution(
        WorkflowExecutionHistory.fromJson(Files.readString(history)), GenerationWorkflowImpl.class);
  }

  @org.junit.jupiter.api.Test
  void every_path_has_a_saved_history() throws Exception {
    assertThat(histories())
        .extracting(p -> p.getFileName().toString())
        .contains(
            "delivered.json",
            "refused.json",
            "not-sent-then-delivered.json",
            "rate-limited-then-delivered.json",
            "review-found-remote-job.json",
            "review-not-submitted.json",
            "review-abandon.json",
            "dispatch-timeout-review.json",
            "account-refused-then-delivered.json");
  }
}
