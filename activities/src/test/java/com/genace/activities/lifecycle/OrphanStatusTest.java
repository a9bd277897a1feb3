package com.genace.activities.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The orphan sweeper's rule over every status of the SDK's enum. A unit test: the Java test server
 * cannot pause a workflow (it does not implement PauseWorkflowExecution) and never reports a run as
 * continued as new to a describe by id, so those two are checked here, on the mapping the sweep
 * applies to what it describes (OrphanSweepTest covers the statuses a test server can produce).
 */
class OrphanStatusTest {

  @Test
  void only_a_run_that_ended_without_a_successor_makes_an_orphan() {
    assertThat(
            Arrays.stream(WorkflowExecutionStatus.values())
                .filter(status -> OrphanStatus.closed(status).isPresent())
                .map(OrphanStatus::name))
        .containsExactlyInAnyOrder("COMPLETED", "FAILED", "CANCELED", "TERMINATED", "TIMED_OUT");
  }

  @Test
  void a_paused_workflow_is_left_alone() {
    assertThat(OrphanStatus.closed(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_PAUSED))
        .isEmpty();
    assertThat(OrphanStatus.unknown(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_PAUSED))
        .isFalse();
  }

  @Test
  void a_run_that_continued_as_new_is_left_alone_as_its_successor_runs() {
    assertThat(
            OrphanStatus.closed(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW))
        .isEmpty();
  }

  @Test
  void a_running_workflow_is_left_alone() {
    assertThat(OrphanStatus.closed(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING))
        .isEmpty();
  }

  @Test
  void a_status_this_worker_does_not_know_is_left_alone_and_called_unknown() {
    for (WorkflowExecutionStatus status :
        new WorkflowExecutionStatus[] {
          WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED,
          WorkflowExecutionStatus.UNRECOGNIZED,
          null
        }) {
      assertThat(OrphanStatus.closed(status)).as(String.valueOf(status)).isEmpty();
      assertThat(OrphanStatus.unknown(status)).as(String.valueOf(status)).isTrue();
    }
  }

  @Test
  void the_close_status_is_recorded_by_its_short_name() {
    assertThat(OrphanStatus.closed(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED))
        .contains("TERMINATED");
  }
}
