package com.genace.client;

import com.genace.client.model.Phase;
import com.genace.client.review.ReviewResolution;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowQueryException;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.common.SearchAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What application services (and the CLI) use to start, inspect and resolve operations.
 *
 * <p>Starting is idempotent by operation id: the workflow id is derived from it, a running workflow
 * with the same request is joined, a finished one is never started again (so an operation is never
 * dispatched twice by a repeated start), and the same id with a different request is refused.
 *
 * <p>In the artifact {@code com.genace:genace-client} (docs/clients.md), over any {@link
 * WorkflowClient} connected to the namespace the workers serve:
 *
 * <pre>{@code
 * WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
 *     WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:7233").build());
 * GenerationClient client = new GenerationClient(WorkflowClient.newInstance(service,
 *     WorkflowClientOptions.newBuilder().setNamespace("default").build()));
 * }</pre>
 *
 * <p>Every method may also throw Temporal's {@link io.temporal.client.WorkflowServiceException}
 * when the server cannot be reached.
 */
public final class GenerationClient {

  /** How often {@link #awaitEndOrReview} asks the workflow where it stands. */
  static final Duration REVIEW_CHECK_INTERVAL = Duration.ofSeconds(1);

  /** The visibility query of {@link #operationsInReview}. */
  public static final String IN_REVIEW_QUERY =
      "WorkflowType = 'GenerationWorkflow' AND ExecutionStatus = 'Running'"
          + " AND GenaceNeedsReview = true";

  private final WorkflowClient client;
  private final int maxInputBytes;

  public GenerationClient(WorkflowClient client) {
    this(client, GenerationRequest.DEFAULT_MAX_INPUT_BYTES);
  }

  private GenerationClient(WorkflowClient client, int maxInputBytes) {
    if (maxInputBytes < 1 || maxInputBytes > GenerationRequest.MAX_INPUT_BYTES_CEILING) {
      throw new IllegalArgumentException(
          "the largest input must be between 1 and "
              + GenerationRequest.MAX_INPUT_BYTES_CEILING
              + " bytes");
    }
    this.client = client;
    this.maxInputBytes = maxInputBytes;
  }

  /**
   * This client with another bound on a request's input ({@code GENACE_MAX_INPUT_BYTES}; at most
   * {@link GenerationRequest#MAX_INPUT_BYTES_CEILING}, which the workflow holds every start to).
   */
  public GenerationClient withMaxInputBytes(int maxInputBytes) {
    return new GenerationClient(client, maxInputBytes);
  }

  /** Whether {@link #start} created the workflow or found it already there. */
  public record Started(String workflowId, String runId, boolean alreadyExisted) {}

  /** Where an operation stands when {@link #awaitEndOrReview} returns. */
  public sealed interface Outcome {

    /** The operation ended: {@code delivered}, {@code failed} or {@code abandoned}. */
    record Ended(OperationResult result) implements Outcome {}

    /** The operation waits in review for an operator's decision ({@link #resolve}). */
    record NeedsOperator(OperationView view) implements Outcome {}
  }

  /**
   * Starts the operation, or joins it if it was started before with the same request (same model,
   * account and input, compared as JSON values).
   *
   * @throws IllegalArgumentException for a blank id or model, an input that is not a JSON object,
   *     an operation id too long for an artifact's object key, an input over the bound
   * @throws OperationConflictException when the id was started with a different request; nothing is
   *     started and the existing operation is unchanged
   */
  public Started start(GenerationRequest request) {
    return start(request, Urgency.NORMAL);
  }

  /**
   * {@link #start(GenerationRequest)}, with the operation's tasks handed out at {@code urgency}
   * and, where the Temporal server has fairness on, fairly between accounts: the fairness key is
   * the request's account, so one account's backlog does not hold another's render behind it
   * (docs/deployment.md, "Fairness between accounts"). A server without them hands tasks out in
   * order, as before.
   */
  public Started start(GenerationRequest request, Urgency urgency) {
    request.validate(maxInputBytes);
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
                // Visible from the start; the workflow itself only upserts the phases after it.
                .setTypedSearchAttributes(
                    SearchAttributes.newBuilder()
                        .set(GenerationSearchAttributes.PHASE, Phase.PENDING.wire())
                        .set(GenerationSearchAttributes.NEEDS_REVIEW, false)
                        .build())
                .setPriority(urgency.forAccount(request.accountOrDefault()))
                .setStaticSummary(
                    "Genace generation `" + request.operationId() + "` (" + request.model() + ")")
                .build());
    try {
      // The request alone, as any client sends it: the Web UI then shows the input as one object.
      WorkflowExecution execution = WorkflowStub.fromTyped(workflow).start(request);
      return new Started(workflowId, execution.getRunId(), false);
    } catch (WorkflowExecutionAlreadyStarted e) {
      return join(request, e.getExecution());
    }
  }

  /**
   * Joins an operation started before, when it was started with the same request: compared with the
   * request its run's history starts with, so that no worker needs to run (a service that starts
   * again during a worker outage gets its answer at once). Other SDKs meet the same rule in the
   * workflow, through Update-with-Start and the {@code join} update (docs/clients.md).
   */
  private Started join(GenerationRequest request, WorkflowExecution execution) {
    List<String> differences = RequestDifferences.between(startedRequest(execution), request);
    if (!differences.isEmpty()) {
      throw new OperationConflictException(request.operationId(), differences);
    }
    return new Started(execution.getWorkflowId(), execution.getRunId(), true);
  }

  /**
   * The workflow's view of the operation (phase, remote job id, review case, refused resolutions).
   * A finished operation is answered too, while a worker runs to replay it.
   *
   * @throws OperationNotFoundException when no such operation was started
   */
  public OperationView describe(String operationId) {
    try {
      return stub(operationId).describe();
    } catch (WorkflowNotFoundException e) {
      throw new OperationNotFoundException(operationId, e);
    } catch (WorkflowQueryException e) {
      if (e.getCause() instanceof WorkflowNotFoundException notFound) {
        throw new OperationNotFoundException(operationId, notFound);
      }
      throw e;
    }
  }

  /**
   * The operations that wait in review, at most {@code limit}, as Temporal's visibility lists them:
   * running {@code GenerationWorkflow}s whose search attribute {@code GenaceNeedsReview} is true,
   * the list an operator's Web UI shows. Needs no worker and no database.
   *
   * <p>Visibility is eventually consistent: a review opened or resolved a moment ago may be missing
   * or still listed; {@link #describe} says where an operation stands now, and whether it waits for
   * an operator ({@link OperationView#awaitsOperator()}) or is still gathering its evidence (a
   * review that may settle itself).
   *
   * @return operation ids, in the order visibility returns them
   * @throws IllegalArgumentException when {@code limit} is not positive
   */
  public List<String> operationsInReview(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, not " + limit);
    }
    return client
        .listExecutions(IN_REVIEW_QUERY)
        .limit(limit)
        .map(listed -> GenerationWorkflow.operationId(listed.getExecution().getWorkflowId()))
        .toList();
  }

  /**
   * Resolves an open review and waits until the workflow has accepted the decision.
   *
   * @return the workflow's acknowledgement, e.g. {@code accepted found_remote_job}
   * @throws ResolutionRefusedException when the operation is not in review (or has ended), or the
   *     decision is incomplete; nothing changed
   * @throws OperationNotFoundException when no such operation was started
   */
  public String resolve(String operationId, ReviewResolution resolution) {
    try {
      return stub(operationId).resolve(resolution);
    } catch (WorkflowUpdateException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      String reason =
          cause instanceof io.temporal.failure.ApplicationFailure app
              ? app.getOriginalMessage()
              : cause.getMessage();
      throw new ResolutionRefusedException(operationId, reason, e);
    } catch (WorkflowNotFoundException e) {
      throw endedOrUnknown(operationId, e);
    }
  }

  /**
   * Cancels the operation on purpose (the customer cancelled the order), recorded as requested by
   * this client's Temporal identity. See {@link #cancel(String, CancelRequest)}.
   */
  public String cancel(String operationId, String reason) {
    return cancel(operationId, new CancelRequest(reason, client.getOptions().getIdentity()));
  }

  /**
   * Cancels the operation and waits until the workflow has accepted the request; the operation then
   * ends according to where it stands (see {@link GenerationWorkflow#cancel}): never with a POST,
   * never forgetting a render Genace accepted. A second request while the first is handled changes
   * nothing.
   *
   * @return the workflow's answer, e.g. {@code cancelling from phase observing: cancelled by ...}
   * @throws IllegalArgumentException when the reason or requester is blank or too long
   * @throws OperationEndedException when the operation has already ended; nothing changed
   * @throws CancellationRefusedException when the workflow refused for another reason
   * @throws OperationNotFoundException when no such operation was started
   */
  public String cancel(String operationId, CancelRequest request) {
    request
        .problem()
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(problem);
            });
    try {
      return stub(operationId).cancel(request);
    } catch (WorkflowUpdateException e) {
      String reason = refusal(e);
      if (reason.contains("has already ended")) {
        throw new OperationEndedException(operationId, reason, e);
      }
      throw new CancellationRefusedException(operationId, reason, e);
    } catch (WorkflowNotFoundException e) {
      GenerationClientException ended = endedOrUnknown(operationId, e);
      if (ended instanceof OperationNotFoundException) {
        throw ended;
      }
      throw new OperationEndedException(operationId, ended.getMessage(), e);
    }
  }

  private static String refusal(WorkflowUpdateException e) {
    Throwable cause = e.getCause() == null ? e : e.getCause();
    return cause instanceof io.temporal.failure.ApplicationFailure app
        ? app.getOriginalMessage()
        : cause.getMessage();
  }

  /**
   * Sends the resolution as a signal, as the Web UI does. A signal has no answer: a refused one is
   * listed by {@link #describe}'s {@code rejectedResolutions}. Prefer {@link #resolve}.
   *
   * @throws ResolutionRefusedException when the operation has ended
   * @throws OperationNotFoundException when no such operation was started
   */
  public void signalResolution(String operationId, ReviewResolution resolution) {
    try {
      WorkflowStub.fromTyped(stub(operationId))
          .signal(GenerationWorkflow.RESOLUTION_SIGNAL, resolution);
    } catch (WorkflowNotFoundException e) {
      throw endedOrUnknown(operationId, e);
    }
  }

  /**
   * Waits for the operation's end. An operation that ends {@code failed} or {@code abandoned}
   * returns normally: its {@link OperationResult#phase()} and {@code detail} say why.
   *
   * @throws OperationTimeoutException when it did not end in time (for example it waits in review);
   *     its {@code view()} says where it stands
   * @throws OperationNotFoundException when no such operation was started
   * @throws io.temporal.client.WorkflowFailedException when its workflow was cancelled, terminated
   *     or timed out from outside
   */
  public OperationResult awaitResult(String operationId, Duration timeout)
      throws OperationTimeoutException {
    try {
      return result(operationId, timeout);
    } catch (TimeoutException e) {
      throw new OperationTimeoutException(operationId, viewOrNull(operationId));
    }
  }

  /**
   * Waits until the operation ends or needs an operator, whichever comes first: unlike {@link
   * #awaitResult}, a review does not wait out the timeout.
   *
   * @throws OperationTimeoutException when neither happened in time
   * @throws OperationNotFoundException when no such operation was started
   */
  public Outcome awaitEndOrReview(String operationId, Duration timeout)
      throws OperationTimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Duration left = Duration.ofNanos(deadline - System.nanoTime());
      Duration wait = left.compareTo(REVIEW_CHECK_INTERVAL) < 0 ? left : REVIEW_CHECK_INTERVAL;
      try {
        return new Outcome.Ended(result(operationId, wait.isNegative() ? Duration.ZERO : wait));
      } catch (TimeoutException e) {
        OperationView view = viewOrNull(operationId);
        if (view != null && view.awaitsOperator()) {
          return new Outcome.NeedsOperator(view);
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new OperationTimeoutException(operationId, view);
        }
      }
    }
  }

  private OperationResult result(String operationId, Duration wait) throws TimeoutException {
    try {
      return WorkflowStub.fromTyped(stub(operationId))
          .getResult(wait.toMillis(), TimeUnit.MILLISECONDS, OperationResult.class);
    } catch (WorkflowNotFoundException e) {
      throw new OperationNotFoundException(operationId, e);
    }
  }

  private OperationView viewOrNull(String operationId) {
    try {
      return describe(operationId);
    } catch (OperationNotFoundException e) {
      throw e;
    } catch (RuntimeException e) {
      return null; // no worker to answer the query right now: the timeout says enough
    }
  }

  /** A signal or update to a closed workflow: say it ended, or that it never existed. */
  private GenerationClientException endedOrUnknown(
      String operationId, WorkflowNotFoundException e) {
    try {
      var status =
          client
              .newUntypedWorkflowStub(GenerationWorkflow.workflowId(operationId))
              .describe()
              .getStatus();
      return new ResolutionRefusedException(
          operationId,
          "operation " + operationId + " has ended (workflow " + status.name() + ")",
          e);
    } catch (WorkflowNotFoundException unknown) {
      return new OperationNotFoundException(operationId, e);
    }
  }

  /** The request an existing run was started with, from the first event of its history. */
  private GenerationRequest startedRequest(WorkflowExecution execution) {
    Payloads input =
        client
            .fetchHistory(execution.getWorkflowId(), execution.getRunId())
            .getEvents()
            .get(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getInput();
    return client
        .getOptions()
        .getDataConverter()
        .fromPayloads(0, Optional.of(input), GenerationRequest.class, GenerationRequest.class);
  }

  private GenerationWorkflow stub(String operationId) {
    return client.newWorkflowStub(
        GenerationWorkflow.class, GenerationWorkflow.workflowId(operationId));
  }
}
