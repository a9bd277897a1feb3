package com.genace.workflows.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Replays saved passes of the lifecycle workflows (the sweeper's and the retention's) against the
 * current code: a change that would break a pass in flight fails here. Recorded by the worker
 * module's OrphanSweepTest and RetentionReuseTest with {@code -Dgenace.recordHistories=<this
 * module>/src/test/resources/histories} (they go beside, in {@code sweep-histories} and {@code
 * retention-histories}).
 */
class LifecycleWorkflowReplayTest {

  @Test
  void saved_sweep_passes_replay_against_the_current_workflow_code() throws Exception {
    List<Path> histories = histories("/sweep-histories");
    assertThat(histories)
        .extracting(p -> p.getFileName().toString())
        .containsExactly("sweep-found-one-orphan.json");
    replay(histories, SweepWorkflowImpl.class);
  }

  @Test
  void saved_retention_passes_replay_against_the_current_workflow_code() throws Exception {
    List<Path> histories = histories("/retention-histories");
    assertThat(histories)
        .extracting(p -> p.getFileName().toString())
        .containsExactly("retention-deleted-one.json");
    replay(histories, RetentionWorkflowImpl.class);
  }

  private static List<Path> histories(String resource) throws Exception {
    Path directory = Path.of(LifecycleWorkflowReplayTest.class.getResource(resource).toURI());
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    }
  }

  private static void replay(List<Path> histories, Class<?> workflowImpl) throws Exception {
    for (Path history : histories) {
      WorkflowReplayer.replayWorkflowExecution(
          WorkflowExecutionHistory.fromJson(Files.readString(history)), workflowImpl);
    }
  }
}
