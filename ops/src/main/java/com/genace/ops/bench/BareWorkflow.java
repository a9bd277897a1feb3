package com.genace.ops.bench;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/**
 * The end-to-end baseline: a workflow of three no-op activities, what any Temporal workflow with
 * three steps costs on the same server and worker settings.
 */
@WorkflowInterface
public interface BareWorkflow {

  String TASK_QUEUE = "genace-bench-bare";

  @WorkflowMethod
  String run(String operationId);

  /** Does nothing, three times. */
  @ActivityInterface
  interface Steps {
    String step(String operationId, int number);
  }

  /** Registered with the bare worker. */
  final class Impl implements BareWorkflow {

    private final Steps steps =
        Workflow.newActivityStub(
            Steps.class,
            ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build());

    @Override
    public String run(String operationId) {
      for (int number = 1; number <= 3; number++) {
        steps.step(operationId, number);
      }
      return operationId;
    }
  }

  /** The no-op. */
  final class StepsImpl implements Steps {
    @Override
    public String step(String operationId, int number) {
      return operationId;
    }
  }
}
