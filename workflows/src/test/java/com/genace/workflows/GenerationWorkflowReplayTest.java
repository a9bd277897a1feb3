package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.workflows.support.SavedHistories;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays the saved histories of every path of the present code against it: each path is recorded
 * by the worker module's end-to-end tests with {@code -Dgenace.recordHistories=<this
 * module>/src/test/resources/histories} (docs/workflow-versions.md). What running workflows of a
 * released version look like is {@link ReleasedHistoriesTest}'s: the copies under {@code
 * release/<version>/}, which this directory's recordings never replace.
 */
class GenerationWorkflowReplayTest {

  private static TestWorkflowEnvironment environment;
  private static Worker worker;

  @BeforeAll
  static void startReplayWorker() {
    environment = TestWorkflowEnvironment.newInstance();
    // The first replay loads Jackson and the SDK's classes: on a busy machine that alone can
    // outlast the default one-second deadlock detection, which is not what this test checks.
    worker =
        environment.newWorker(
            "replay",
            WorkerOptions.newBuilder()
                .setDefaultDeadlockDetectionTimeout(Duration.ofSeconds(30).toMillis())
                .build());
    worker.registerWorkflowImplementationTypes(GenerationWorkflowImpl.class);
  }

  @AfterAll
  static void stopReplayWorker() {
    environment.close();
  }

  static List<Path> histories() throws IOException, URISyntaxException {
    return SavedHistories.all();
  }

  @ParameterizedTest
  @MethodSource("histories")
  void saved_history_replays_against_the_current_workflow_code(Path history) throws Exception {
    WorkflowReplayer.replayWorkflowExecution(SavedHistories.parse(history), worker);
  }

  @Test
  void every_path_has_a_saved_history() throws Exception {
    assertThat(histories())
        .extracting(p -> p.getFileName().toString())
        .containsExactlyInAnyOrder(
            "account-refused-then-delivered.json",
            "allowance-exhausted-then-delivered.json",
            "cancel-delivering.json",
            "cancel-in-review.json",
            "cancel-observing-delivered.json",
            "cancel-observing.json",
            "cancel-pending.json",
            "cancel-post-accepted.json",
            "cancel-post-unknown-review.json",
            "cancel-queued-dispatch.json",
            "cancel-swept-review-not-submitted.json",
            "continued-allowance-exhausted-then-delivered-first-run.json.gz",
            "continued-allowance-exhausted-then-delivered-last-run.json.gz",
            "continued-cancel-post-unknown-review-first-run.json.gz",
            "continued-cancel-post-unknown-review-last-run.json.gz",
            "continued-cancel-observation-flood-delivered-first-run.json.gz",
            "continued-cancel-observation-flood-delivered-last-run.json.gz",
            "continued-delivery-flood-delivered-first-run.json.gz",
            "continued-delivery-flood-delivered-last-run.json.gz",
            "continued-observation-flood-delivered-first-run.json.gz",
            "continued-observation-flood-delivered-last-run.json.gz",
            "continued-rate-limited-then-delivered-first-run.json.gz",
            "continued-rate-limited-then-delivered-last-run.json.gz",
            "continued-review-found-remote-job-first-run.json.gz",
            "continued-review-found-remote-job-last-run.json.gz",
            "continued-review-flood-found-remote-job-first-run.json.gz",
            "continued-review-flood-found-remote-job-last-run.json.gz",
            "delivered.json",
            "delivered-with-credits.json",
            "dispatch-timeout-nothing-sent-then-delivered.json",
            "dispatch-timeout-review.json",
            "first-dispatch-not-started-then-delivered.json",
            "joined-by-update-with-start.json",
            "not-sent-five-times-review.json",
            "not-sent-then-delivered.json",
            "observation-after-poll-failures.json",
            "observation-review-not-found.json",
            "observation-waiting-activity-never-ran.json",
            "observation-worker-crash.json",
            "paused-then-delivered.json",
            "rate-limited-then-delivered.json",
            "refused.json",
            "render-failed.json",
            "review-abandon.json",
            "review-foreign-job-refused.json",
            "review-found-remote-job.json",
            "review-not-submitted-accepted-while-unchecked.json",
            "review-not-submitted-refused-by-denied-write.json",
            "review-not-submitted-refused-by-late-search.json",
            "review-not-submitted-refused-while-unchecked.json",
            "review-not-submitted.json",
            "review-refused-then-abandon.json",
            "review-resolution-finds-operation-ended.json",
            "review-self-settled.json",
            "swept-review-found-remote-job.json",
            "temporal-cancel-observing.json");
  }
}
