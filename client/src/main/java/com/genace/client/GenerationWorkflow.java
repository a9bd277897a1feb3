package com.genace.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.client.review.ReviewResolution;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One generation operation, from dispatch to delivery. Its workflow id is {@link
 * #workflowId(String)}; starting the same operation twice joins the existing run and never
 * dispatches twice, and the same id with another request is refused ({@link #join}).
 *
 * <p>The dispatch ({@code POST}) is attempted once per decision: a lost response, a timeout or a
 * crash after sending leads to an uncertainty review, where the workflow waits without limit for
 * {@link #resolveReconciliation} (or the validated {@link #resolve} update).
 */
@WorkflowInterface
public interface GenerationWorkflow {

  /** What every operation's workflow id starts with. */
  String WORKFLOW_ID_PREFIX = "generation/";

  /**
   * The name of {@link #resolveReconciliation}'s signal, as an operator sends it from the Web UI;
   * its payload is a resolution's JSON, read by the workflow itself.
   */
  String RESOLUTION_SIGNAL = "resolveReconciliation";

  /**
   * The {@link ReviewResolution#resolvedBy} of a review that settled itself (the workflow found
   * exactly one job carrying the operation's id), as the ledger and {@link #describe()} show it.
   */
  String RECONCILER = "reconciler";

  /** The workflow id for an operation id. */
  static String workflowId(String operationId) {
    return WORKFLOW_ID_PREFIX + operationId;
  }

  /**
   * The operation id of a workflow id made by {@link #workflowId(String)}.
   *
   * @throws IllegalArgumentException for a workflow id of another kind
   */
  static String operationId(String workflowId) {
    if (!workflowId.startsWith(WORKFLOW_ID_PREFIX)) {
      throw new IllegalArgumentException("not an operation's workflow id: " + workflowId);
    }
    return workflowId.substring(WORKFLOW_ID_PREFIX.length());
  }

  /**
   * Runs the operation to its end.
   *
   * @param request what to generate; validated, and the same for every run of the operation
   * @param carried null when a client starts the operation (clients pass only the request); the
   *     state a run hands to the run it continues as new with, after its history grew long while
   *     waiting
   */
  @WorkflowMethod
  OperationResult run(GenerationRequest request, CarriedState carried);

  /**
   * An operator's decision on an open review, as a {@link ReviewResolution}'s JSON. Taken raw so
   * that a payload of any shape (an array, a string, a number for a field, an unknown field) is
   * answered. A refused one (malformed, unknown decision, a job id the ledger would refuse, not in
   * review, a job Genace does not know or that carries another operation id, {@code not_submitted}
   * while Genace holds a job of this operation) changes nothing; it is logged, counted and listed
   * with its reason by {@link #describe()} and in the Web UI's current details.
   */
  @SignalMethod
  void resolveReconciliation(JsonNode resolution);

  /**
   * The same decision with synchronous feedback: the validator refuses what can be checked at once;
   * a job named by {@code found_remote_job} is then read on Genace, and a refusal fails the update
   * with its reason (type {@code ResolutionRefused}) and is listed by {@link #describe()}.
   */
  @UpdateMethod
  String resolve(ReviewResolution resolution);

  @UpdateValidatorMethod(updateName = "resolve")
  void validateResolve(ReviewResolution resolution);

  /**
   * Cancels the operation on purpose, recording who and why. The workflow then ends according to
   * where the operation is: before any POST it ends {@code abandoned} without sending one; a POST
   * in flight is waited for and its outcome recorded (an unknown one opens a review an operator
   * resolves); once Genace accepted the render it ends {@code abandoned} with the remote job id
   * recorded (or is still delivered, see {@link CancelRequest#deliverRendering}); a delivery under
   * way finishes. A Temporal cancel request is handled the same way, with Temporal as requester.
   *
   * @return what happens next; a second request while the first is handled changes nothing
   */
  @UpdateMethod
  String cancel(CancelRequest request);

  /** Refuses an incomplete request, or one for an operation that has already ended. */
  @UpdateValidatorMethod(updateName = "cancel")
  void validateCancel(CancelRequest request);

  /**
   * Joins this operation, for a client that starts it by Update-with-Start (docs/clients.md): with
   * the id conflict policy {@code USE_EXISTING}, the start creates the workflow or finds it
   * running, and this update then decides whether the caller may wait for its result. The validator
   * refuses a request other than the one this operation was started with (same model, account and
   * input, compared as JSON values), so that no caller receives another request's render: nothing
   * is started or changed.
   *
   * @return {@code joined}
   */
  @UpdateMethod
  String join(GenerationRequest request);

  /**
   * Refuses, before anything is recorded, a request that breaks the contract ({@code invalid start
   * input: ...}) or differs from this operation's own ({@code operation <id> was started with
   * another request (<what differs>); use a new operation id for a new request}).
   */
  @UpdateValidatorMethod(updateName = "join")
  void validateJoin(GenerationRequest request);

  @QueryMethod
  OperationView describe();
}
