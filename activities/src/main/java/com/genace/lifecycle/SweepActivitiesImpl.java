package com.genace.lifecycle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.ledger.OperationsLedger;
import com.genace.model.ReviewReason;
import com.genace.workflows.GenerationRequest;
import com.genace.workflows.GenerationWorkflow;
import com.genace.workflows.TaskQueues;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.activity.Activity;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orphan sweeper's step (see {@link SweepActivities#sweepOrphans}): one ledger read of the
 * unfinished operations, one describe per operation, and for each orphan one fenced write and one
 * workflow start.
 */
public final class SweepActivitiesImpl implements SweepActivities {

  /** The most operations one pass checks; the next pass continues with the rest. */
  static final int MAX_PER_PASS = 5_000;

  private static final Logger log = LoggerFactory.getLogger(SweepActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final WorkflowClient client;
  private final String owner;
  private final OrphanListener listener;

  public SweepActivitiesImpl(
      OperationsLedger ledger, WorkflowClient client, String owner, OrphanListener listener) {
    this.ledger = ledger;
    this.client = client;
    this.owner = owner;
    this.listener = listener;
  }

  @Override
  public SweepReport sweepOrphans() {
    List<OperationsLedger.Unfinished> unfinished = ledger.unfinished(MAX_PER_PASS);
    List<String> orphans = new ArrayList<>();
    for (OperationsLedger.Unfinished operation : unfinished) {
      heartbeat(operation.operationId());
      Optional<String> closed = closeStatus(operation.operationId());
      if (closed.isEmpty()) {
        continue;
      }
      String evidence =
          JSON.createObjectNode()
              .put("reason", ReviewReason.WORKFLOW_CLOSED.wire())
              .put("close_status", closed.get())
              .put("workflow_id", GenerationWorkflow.workflowId(operation.operationId()))
              .put("phase_before", operation.phase().wire())
              .toString();
      if (!ledger.sweepToReview(operation.operationId(), operation.revision(), owner, evidence)) {
        log.info(
            "operation {}: workflow {} but its row changed or is leased; next pass looks again",
            operation.operationId(),
            closed.get());
        continue;
      }
      log.warn(
          "operation {} was {} while its workflow was {}: now in review (workflow_closed)",
          operation.operationId(),
          operation.phase().wire(),
          closed.get());
      restartInReview(operation, closed.get());
      orphans.add(operation.operationId());
      listener.orphanFound(operation.operationId(), closed.get());
    }
    return new SweepReport(unfinished.size(), orphans);
  }

  /** The workflow's close status, {@code MISSING} if there is none, empty while it runs. */
  private Optional<String> closeStatus(String operationId) {
    DescribeWorkflowExecutionRequest request =
        DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(
                WorkflowExecution.newBuilder()
                    .setWorkflowId(GenerationWorkflow.workflowId(operationId)))
            .build();
    try {
      WorkflowExecutionStatus status =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(request)
              .getWorkflowExecutionInfo()
              .getStatus();
      if (status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        return Optional.empty();
      }
      return Optional.of(status.name().replace("WORKFLOW_EXECUTION_STATUS_", ""));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.of("MISSING");
      }
      throw e;
    }
  }

  /**
   * A new run that finds the review and waits for an operator, so that {@code ops resolve} works
   * again. It cannot POST: a dispatch is claimed only from {@code pending}, which an in-review
   * operation reaches only by an operator's {@code not_submitted}.
   */
  private void restartInReview(OperationsLedger.Unfinished operation, String closeStatus) {
    GenerationWorkflow workflow =
        client.newWorkflowStub(
            GenerationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(GenerationWorkflow.workflowId(operation.operationId()))
                .setTaskQueue(TaskQueues.OPERATIONS)
                .setWorkflowIdReusePolicy(
                    WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .setStaticSummary(
                    "Genace generation `"
                        + operation.operationId()
                        + "` ("
                        + operation.model()
                        + "), in review: its previous workflow was "
                        + closeStatus)
                .build());
    GenerationRequest request =
        new GenerationRequest(
            operation.operationId(),
            operation.model(),
            operation.input(),
            null,
            operation.account());
    try {
      WorkflowClient.start(workflow::run, request);
    } catch (WorkflowExecutionAlreadyStarted e) {
      // Someone started it meanwhile; it finds the same review.
    }
  }

  private static void heartbeat(String operationId) {
    try {
      Activity.getExecutionContext().heartbeat(operationId);
    } catch (IllegalStateException notInActivity) {
      // Called directly (tests): nothing to report to.
    }
  }
}
