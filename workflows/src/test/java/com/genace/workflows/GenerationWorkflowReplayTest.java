package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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

  /**
   * The deadlock detector measures wall time (1 s by default): on a loaded machine the first
   * replay, which loads and links the workflow code, can exceed it. Replay checks determinism, not
   * speed.
   */
  static final long DEADLOCK_DETECTION_MS = 30_000;

  private static TestWorkflowEnvironment environment;
  private static Worker replayer;

  @BeforeAll
  static void startReplayer() {
    environment = TestWorkflowEnvironment.newInstance();
    replayer =
        environment.newWorker(
            "replay",
            WorkerOptions.newBuilder()
                .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MS)
                .build());
    replayer.registerWorkflowImplementationTypes(GenerationWorkflowImpl.class);
  }

  @AfterAll
  static void stopReplayer() {
    environment.close();
  }

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
        WorkflowExecutionHistory.fromJson(Files.readString(history)), replayer);
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
