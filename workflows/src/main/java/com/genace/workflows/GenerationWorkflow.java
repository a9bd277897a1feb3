package com.genace.workflows;

import com.genace.review.ReviewResolution;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One generation operation, from dispatch to delivery. Its workflow id is {@link
 * #workflowId(String)}; starting the same operation twice joins the existing run and never
 * dispatches twice.
 *
 * <p>The dispatch ({@code POST}) is attempted once per decision: a lost response, a timeout or a
 * crash after sending leads to an uncertainty review, where the workflow waits without limit for
 * {@link #resolveReconciliation} (or the validated {@link #resolve} update).
 */
@WorkflowInterface
public interface GenerationWorkflow {

  /** The workflow id for an operation id. */
  static String workflowId(String operationId) {
    return "generation/" + operationId;
  }

  @WorkflowMethod
  OperationResult run(GenerationRequest request);

  /**
   * An operator's decision on an open review. An invalid one (unknown decision, missing job id, not
   * in review) changes nothing; it is logged and listed by {@link #describe()}.
   */
  @SignalMethod
  void resolveReconciliation(ReviewResolution resolution);

  /** The same decision with synchronous feedback: an invalid one is refused by the validator. */
  @UpdateMethod
  String resolve(ReviewResolution resolution);

  @UpdateValidatorMethod(updateName = "resolve")
  void validateResolve(ReviewResolution resolution);

  @QueryMethod
  OperationView describe();
}
