package com.genace.workflows;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.review.ReviewResolution;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What application services (and the CLI) use to start, inspect and resolve operations.
 *
 * <p>Starting is idempotent by operation id: the workflow id is derived from it, a running workflow
 * is joined, and a finished one is never started again (so an operation is never dispatched twice
 * by a repeated start).
 */
public final class GenerationClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final WorkflowClient client;

  public GenerationClient(WorkflowClient client) {
    this.client = client;
  }

  /** Whether {@link #start} created the workflow or found it already there. */
  public record Started(String workflowId, String runId, boolean alreadyExisted) {}

  /**
   * Starts the operation, or joins it if it was started before.
   *
   * @throws IllegalArgumentException for a blank id or model, or an input that is not a JSON object
   */
  public Started start(GenerationRequest request) {
    validate(request);
    String workflowId = GenerationWorkflow.workflowId(request.operationId());
    GenerationWorkflow workflow =
        client.newWorkflowStub(
            GenerationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(workflowId)
                .setTaskQueue(TaskQueues.OPERATIONS)
                .setWorkflowIdReusePolicy(
                    WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .setStaticSummary(
                    "Genace generation `" + request.operationId() + "` (" + request.model() + ")")
                .build());
    try {
      WorkflowExecution execution = WorkflowClient.start(workflow::run, request);
      return new Started(workflowId, execution.getRunId(), false);
    } catch (WorkflowExecutionAlreadyStarted e) {
      return new Started(workflowId, e.getExecution().getRunId(), true);
    }
  }

  /** The workflow's view of the operation (phase, remote job id, review case...). */
  public OperationView describe(String operationId) {
    return stub(operationId).describe();
  }

  /**
   * Resolves an open review and waits until the workflow has accepted the decision.
   *
   * @throws io.temporal.client.WorkflowUpdateException when the workflow refuses it (not in review,
   *     unknown decision, missing job id)
   */
  public String resolve(String operationId, ReviewResolution resolution) {
    return stub(operationId).resolve(resolution);
  }

  /**
   * Sends the resolution as a signal, as the Web UI does; refusals show up in {@link #describe}.
   */
  public void signalResolution(String operationId, ReviewResolution resolution) {
    stub(operationId).resolveReconciliation(resolution);
  }

  /** Waits for the operation's end. */
  public OperationResult awaitResult(String operationId, Duration timeout) throws TimeoutException {
    return WorkflowStub.fromTyped(stub(operationId))
        .getResult(timeout.toMillis(), TimeUnit.MILLISECONDS, OperationResult.class);
  }

  private GenerationWorkflow stub(String operationId) {
    return client.newWorkflowStub(
        GenerationWorkflow.class, GenerationWorkflow.workflowId(operationId));
  }

  private static void validate(GenerationRequest request) {
    if (request.operationId() == null || request.operationId().isBlank()) {
      throw new IllegalArgumentException("operation id must not be blank");
    }
    if (request.model() == null || request.model().isBlank()) {
      throw new IllegalArgumentException("model must not be blank");
    }
    JsonNode input;
    try {
      input = JSON.readTree(request.inputJson() == null ? "" : request.inputJson());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("input is not valid JSON: " + e.getOriginalMessage());
    }
    if (input == null || !input.isObject()) {
      throw new IllegalArgumentException("input must be a JSON object");
    }
    if (request.dispatchTimeout().compareTo(GenerationRequest.MIN_DISPATCH_TIMEOUT) < 0
        || request.dispatchTimeout().compareTo(GenerationRequest.MAX_DISPATCH_TIMEOUT) > 0) {
      throw new IllegalArgumentException(
          "dispatch timeout must be between "
              + GenerationRequest.MIN_DISPATCH_TIMEOUT.toSeconds()
              + " and "
              + GenerationRequest.MAX_DISPATCH_TIMEOUT.toSeconds()
              + " seconds");
    }
  }
}
