package com.genace.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Replays saved histories of the retention's workflow against the current code: a change that would
 * break a pass in flight fails here. Recorded by the worker module's RetentionReuseTest with {@code
 * -Dgenace.recordHistories=<this module>/src/test/resources/histories} (they go beside, in {@code
 * retention-histories}).
 */
class RetentionWorkflowReplayTest {

  @Test
  void saved_retention_histories_replay_against_the_current_workflow_code() throws Exception {
    Path directory = Path.of(getClass().getResource("/retention-histories").toURI());
    List<Path> histories;
    try (Stream<Path> files = Files.list(directory)) {
      histories = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(histories)
        .extracting(p -> p.getFileName().toString())
        .contains("retention-deleted-one.json");
    for (Path history : histories) {
      WorkflowReplayer.replayWorkflowExecution(
          WorkflowExecutionHistory.fromJson(Files.readString(history)),
          RetentionWorkflowImpl.class);
    }
  }
}
