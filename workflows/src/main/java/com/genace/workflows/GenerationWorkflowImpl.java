package com.genace.workflows;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.client.CancelRequest;
import com.genace.client.CarriedState;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.Step;
import com.genace.client.review.ReviewResolution;
import com.genace.workflows.model.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.util.Optional;

/**
 * The operation's course, step by step:
 *
 * <ol>
 *   <li>register the operation in the ledger ({@code pending}), together with the first dispatch
 *       attempt: {@link RegistrationStep};
 *   <li>dispatch until the outcome decides: {@link DispatchStep};
 *   <li>in review, wait without limit for a resolution, reminding periodically: {@link ReviewStep};
 *   <li>observe the remote job until it is terminal: {@link ObservationStep};
 *   <li>deliver its artifacts on success: {@link DeliveryStep}.
 * </ol>
 *
 * <p>A cancel request (the {@code cancel} update with who and why, or Temporal's own) stops the
 * steps wherever they are ({@link Cancellation}) and ends the operation by phase ({@link
 * CancelBookkeeping}): no POST after it, a POST or delivery already under way runs to its recorded
 * end, and a render Genace accepted keeps its remote job id in the ledger.
 *
 * <p>A run whose history has grown long continues as new from one of its waits ({@link RunChain}),
 * and the next run resumes there with what this one carried ({@link CarriedState}).
 *
 * <p>What the operation is and how it is shown (search attributes, the Web UI's current details,
 * {@code describe}) is {@link OperationState}; changes behind version markers are declared in
 * {@link VersionMarkers}; every activity's options are {@link ActivityStubs}.
 *
 * <p>Deterministic: only Temporal's clock, timers and logger are used; the collaborators are plain
 * objects of this workflow instance.
 */
public class GenerationWorkflowImpl implements GenerationWorkflow {

  private final OperationState operation = new OperationState();
  private final Cancellation cancellation = new Cancellation(operation);
  private final RunChain chain = new RunChain(operation, cancellation);
  private final ResolutionCheck resolutionCheck = new ResolutionCheck(operation);
  private final ResolutionInbox resolutions = new ResolutionInbox(operation, resolutionCheck);
  private final ReviewStep review =
      new ReviewStep(operation, cancellation, resolutions, resolutionCheck, chain);
  private final RegistrationStep registration = new RegistrationStep(operation);
  private final DispatchStep dispatch =
      new DispatchStep(operation, registration, cancellation, review, chain);
  private final ObservationStep observation = new ObservationStep(operation, review, chain);
  private final DeliveryStep delivery = new DeliveryStep(operation, cancellation, chain);
  private final CancelBookkeeping afterCancel =
      new CancelBookkeeping(operation, cancellation, review);

  /** The request this run was started with, for {@code join}'s validator. */
  private final GenerationRequest started;

  /**
   * Keeps the start input before any handler runs: the {@code join} update of an Update-with-Start
   * arrives in the first workflow task, possibly before {@link #run} begins. No command is issued
   * here.
   */
  @WorkflowInit
  public GenerationWorkflowImpl(GenerationRequest request, CarriedState carried) {
    this.started = request;
  }

  @Override
  public OperationResult run(GenerationRequest request, CarriedState carried) {
    requireValid(request);
    requireOwnId(request);
    VersionMarkers.askAll();
    operation.begin(request.operationId());
    chain.begin(request, carried);
    if (VersionMarkers.boundedWaits()) {
      operation.keepLatestRefusals();
    }
    if (carried == null) {
      registration.registerWithFirstDispatch();
    }
    Step first = carried == null ? Step.DISPATCH : resume(carried);
    if (cancellation.runUntilCancelled(() -> runSteps(request, first))) {
      afterCancel.end(step -> runSteps(request, step));
    }
    return operation.result();
  }

  /** A continued run takes over the previous run's state and resumes its wait. */
  private Step resume(CarriedState carried) {
    operation.resume(carried);
    if (carried.cancel() != null) {
      // Continued from the review a cancelled operation waits in, or from the observation of the
      // render it asked to be delivered: the bookkeeping goes on from there.
      cancellation.resume(carried.cancel(), carried.step() == Step.REVIEW);
    }
    return switch (carried.step()) {
      case REVIEW -> review.resume(carried);
      case OBSERVE, DELIVER -> carried.step();
      default -> {
        dispatch.resume(carried);
        yield Step.DISPATCH;
      }
    };
  }

  private void runSteps(GenerationRequest request, Step first) {
    Step step = first;
    while (step != Step.DONE) {
      step =
          switch (step) {
            case DISPATCH -> dispatch.dispatchUntilDecided(request);
            case REVIEW -> review.awaitResolution();
            case OBSERVE -> observation.observe();
            case DELIVER -> delivery.deliver();
            case DONE -> Step.DONE;
          };
    }
  }

  /**
   * A start input that breaks the contract (sent by a client other than {@link GenerationClient},
   * which validates first) fails the workflow before anything is registered or dispatched. It reads
   * the input alone, so a replay decides it as the first run did; the bounds (an id too long for an
   * object key, an input over {@link GenerationRequest#MAX_INPUT_BYTES_CEILING}) came with 0.2.0
   * and are versioned ({@link VersionMarkers#inputBounds}).
   */
  private static void requireValid(GenerationRequest request) {
    if (request == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "invalid start input: it is missing (a GenerationRequest object)",
          FailureTypes.INVALID_REQUEST);
    }
    try {
      request.validateShape();
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "invalid start input: " + e.getMessage(), FailureTypes.INVALID_REQUEST);
    }
    Optional<String> overBound = request.boundsProblem(GenerationRequest.MAX_INPUT_BYTES_CEILING);
    if (overBound.isPresent() && VersionMarkers.inputBounds()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "invalid start input: " + overBound.get(), FailureTypes.INVALID_REQUEST);
    }
  }

  /**
   * A run under any id but {@code generation/<operationId>} would be a second owner of the
   * operation's row beside its own workflow (Temporal keeps one open run per id, not per
   * operation), and the sweeper and {@code ops recover} would never find it: it fails before
   * anything is registered or dispatched. On the right id it issues no command, so a replay of any
   * earlier history decides it as the first run did.
   */
  private static void requireOwnId(GenerationRequest request) {
    String expected = GenerationWorkflow.workflowId(request.operationId());
    String actual = Workflow.getInfo().getWorkflowId();
    if (!expected.equals(actual)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "invalid start: operation "
              + request.operationId()
              + " runs only as workflow "
              + expected
              + ", not "
              + actual,
          FailureTypes.INVALID_REQUEST);
    }
  }

  @Override
  public void resolveReconciliation(JsonNode resolution) {
    resolutions.receive(resolution);
  }

  @Override
  public String resolve(ReviewResolution resolution) {
    return resolutions.receive(resolution);
  }

  @Override
  public void validateResolve(ReviewResolution resolution) {
    resolutions.validate(resolution);
  }

  @Override
  public String cancel(CancelRequest request) {
    return cancellation.accept(request);
  }

  @Override
  public void validateCancel(CancelRequest request) {
    cancellation.validate(request);
  }

  @Override
  public String join(GenerationRequest request) {
    return "joined";
  }

  @Override
  public void validateJoin(GenerationRequest request) {
    JoinCheck.requireSameRequest(started, request);
  }

  @Override
  public OperationView describe() {
    return operation.view(review.acceptsResolution());
  }
}
