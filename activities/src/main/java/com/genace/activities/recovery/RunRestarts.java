package com.genace.activities.recovery;

import com.genace.activities.ledger.OperationRow;
import com.genace.client.CarriedState;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.Step;
import com.genace.client.TaskQueues;
import com.genace.client.Urgency;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.util.List;

/**
 * Starts a new run of an operation whose workflow closed or was lost, where the ledger's row says
 * it stands. Neither start can POST: one waits in the review the row holds (a dispatch is claimed
 * only from {@code pending}, which an in-review operation reaches only by an operator's {@code
 * not_submitted}); the other observes (or delivers) the job the row holds, as a run continued as
 * new would, without the registration and dispatch a client's start begins with. Both start with
 * the row's account as their fairness key, as a client's start does. A run already open (started
 * meanwhile) is left as it is: it finds the same row.
 */
public final class RunRestarts {

  private final WorkflowClient client;

  public RunRestarts(WorkflowClient client) {
    this.client = client;
  }

  /** A run that finds the row's review and waits for an operator. */
  public void inReview(OperationRow row, String why) {
    start(row, "in review: " + why, null);
  }

  /**
   * A run that observes the row's job, or delivers it when the row is {@code delivering} (the
   * render succeeded, its snapshot stored).
   */
  public void observing(OperationRow row, String why) {
    String job =
        row.remoteJobId()
            .orElseThrow(() -> new IllegalArgumentException("observing needs the row's job id"));
    Step step =
        row.phase() == com.genace.client.model.Phase.DELIVERING ? Step.DELIVER : Step.OBSERVE;
    CarriedState carried =
        new CarriedState(
            step,
            row.dispatchAttempts(),
            job,
            null,
            List.of(job),
            List.of(),
            null,
            0,
            0,
            0,
            null,
            0,
            0,
            row.credits().orElse(null));
    start(
        row,
        (step == Step.DELIVER ? "delivering" : "observing") + " job " + job + ": " + why,
        carried);
  }

  private void start(OperationRow row, String why, CarriedState carried) {
    GenerationWorkflow workflow =
        client.newWorkflowStub(
            GenerationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(GenerationWorkflow.workflowId(row.operationId()))
                .setTaskQueue(TaskQueues.OPERATIONS)
                .setWorkflowIdReusePolicy(
                    WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                // The urgency it was started with is not in the ledger: normal, its account's
                // share.
                .setPriority(Urgency.NORMAL.forAccount(row.account()))
                .setStaticSummary(
                    "Genace generation `" + row.operationId() + "` (" + row.model() + "), " + why)
                .build());
    GenerationRequest request =
        new GenerationRequest(
            row.operationId(), row.model(), row.requestJson(), null, row.account());
    try {
      if (carried == null) {
        // The request alone, as clients send it: the run registers (a no-op) and finds the review.
        WorkflowStub.fromTyped(workflow).start(request);
      } else {
        WorkflowStub.fromTyped(workflow).start(request, carried);
      }
    } catch (WorkflowExecutionAlreadyStarted e) {
      // Someone started it meanwhile; it finds the same row.
    }
  }
}
