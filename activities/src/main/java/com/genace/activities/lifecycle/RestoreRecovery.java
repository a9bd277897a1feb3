package com.genace.activities.lifecycle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.SweepPosition;
import com.genace.activities.recovery.HistoryEvidence;
import com.genace.activities.recovery.HistoryRepair;
import com.genace.activities.recovery.JobSighting;
import com.genace.activities.recovery.OperationHistory;
import com.genace.activities.recovery.RunRestarts;
import com.genace.client.DeliveredArtifact;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.filter.v1.StartTimeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code ops recover --since TIME}: after a restore of either store, brings the two back to one
 * truth. Two walks:
 *
 * <ol>
 *   <li>Temporal's visibility: every {@code generation/*} workflow started or closed since {@code
 *       TIME} (the backup's timestamp). A row the ledger lost is written again at the phase its
 *       history shows ({@code recreated}); a row behind its history moves forward ({@link
 *       HistoryRepair}, or {@code recovered} while the run still runs);
 *   <li>the ledger's unfinished rows: one whose workflow Temporal no longer holds (or that closed)
 *       is decided as the sweeper decides it: a job the row holds is observed and delivered, a row
 *       with none goes to review, never a POST.
 * </ol>
 *
 * <p>Dry run unless {@code apply}: the same decisions, reported. Idempotent: what it did is what
 * the next run finds done. Every write is fenced by the revision read and a free lease.
 */
public final class RestoreRecovery {

  /** What one operation needed. */
  public record Step(String operationId, String action, String detail, boolean needsPerson) {}

  /** What a run did (or would do), and how much it read. */
  public record Report(int workflowsListed, int rowsChecked, List<Step> steps) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final WorkflowClient client;
  private final OperationHistory history;
  private final ArtifactStore store;
  private final RunRestarts restarts;
  private final HistoryRepair repair;
  private final String owner;
  private final boolean apply;

  public RestoreRecovery(
      OperationsLedger ledger,
      WorkflowClient client,
      OperationHistory history,
      ArtifactStore store,
      String owner,
      boolean apply) {
    this.ledger = ledger;
    this.client = client;
    this.history = history;
    this.store = store;
    this.restarts = new RunRestarts(client);
    this.repair = new HistoryRepair(ledger, store, restarts, owner, apply);
    this.owner = owner;
    this.apply = apply;
  }

  /** Both walks; {@code progress} hears a line every 100 operations. */
  public Report run(Instant since, Consumer<String> progress) {
    List<Step> steps = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    List<String> listed = operationsSince(since);
    for (String operationId : listed) {
      if (seen.add(operationId)) {
        check(operationId).ifPresent(steps::add);
        report(progress, seen.size(), "workflows", steps);
      }
    }
    int rows = 0;
    SweepPosition position = SweepPosition.START;
    while (true) {
      List<OperationsLedger.Unfinished> page = ledger.unfinishedAfter(position, 500);
      for (OperationsLedger.Unfinished unfinished : page) {
        rows++;
        if (seen.add(unfinished.operationId())) {
          check(unfinished.operationId()).ifPresent(steps::add);
        }
        report(progress, rows, "unfinished rows", steps);
        position = unfinished.position();
      }
      if (page.size() < 500) {
        break;
      }
    }
    return new Report(listed.size(), rows, steps);
  }

  private static void report(Consumer<String> progress, int n, String what, List<Step> steps) {
    if (n % 100 == 0) {
      progress.accept(n + " " + what + " checked, " + steps.size() + " to repair so far");
    }
  }

  /** What the operation needs, if anything. */
  Optional<Step> check(String operationId) {
    Optional<OperationRow> found = ledger.find(operationId);
    if (found.isEmpty()) {
      return recreate(operationId);
    }
    OperationRow row = found.get();
    if (row.phase().isTerminal()) {
      return Optional.empty();
    }
    Optional<String> closed = OrphanStatus.describe(client, operationId);
    HistoryEvidence held = history.read(operationId);
    if (closed.isPresent()) {
      HistoryRepair.Repaired repaired = repair.afterClose(row, held, closed.get());
      return Optional.of(
          new Step(
              operationId,
              repaired.outcome().name().toLowerCase(java.util.Locale.ROOT),
              repaired.detail(),
              repaired.outcome() == HistoryRepair.Outcome.SWEPT_TO_REVIEW
                  || repaired.outcome() == HistoryRepair.Outcome.REVIEW_KEPT));
    }
    return catchUp(row, held);
  }

  /** A row behind a run that still runs: it moves forward to the job the run holds. */
  private Optional<Step> catchUp(OperationRow row, HistoryEvidence held) {
    Optional<JobSighting> job = held.latestAcceptedJob();
    boolean behind =
        job.isPresent()
            && (row.phase() == Phase.PENDING
                || row.phase() == Phase.SUBMITTING
                || (row.phase() == Phase.IN_REVIEW
                    && !row.remoteJobId().equals(Optional.of(job.get().jobId()))));
    if (!behind) {
      return Optional.empty();
    }
    String detail = "recovered to observing job " + job.get().describe() + " (its run goes on)";
    if (!apply) {
      return Optional.of(new Step(row.operationId(), "observing", "would " + detail, false));
    }
    ObjectNode evidence =
        JSON.createObjectNode()
            .put("why", "the running run holds job " + job.get().describe())
            .put("run_id", job.get().runId())
            .put("source", job.get().source())
            .put("history", held.summary());
    boolean moved =
        ledger
            .recovery()
            .recoverObserving(
                row.operationId(),
                row.revision(),
                owner,
                job.get().jobId(),
                job.get().credits(),
                evidence.toString());
    return Optional.of(
        new Step(
            row.operationId(),
            moved ? "observing" : "changed",
            moved ? detail : "the row changed or is leased: run again",
            false));
  }

  /** A row the ledger lost, written again at the phase its history shows. */
  private Optional<Step> recreate(String operationId) {
    HistoryEvidence held = history.read(operationId);
    Optional<GenerationRequest> request = held.request();
    if (request.isEmpty()) {
      return Optional.of(
          new Step(
              operationId,
              "unreadable",
              "no row, and no readable start input in Temporal's history: " + held.summary(),
              true));
    }
    GenerationRequest r = request.get();
    NewOperation operation = new NewOperation(operationId, r.model(), r.inputJson(), r.account());
    Optional<OperationResult> ended = held.ended();
    Optional<JobSighting> job = held.latestAcceptedJob();
    Phase phase;
    String manifest = null;
    String note = null;
    String reviewReason = null;
    if (ended.isPresent()
        && (ended.get().phase() != Phase.DELIVERED || allHeld(ended.get().artifacts()))) {
      phase = ended.get().phase();
      note = ended.get().detail();
      if (phase == Phase.DELIVERED) {
        ObjectNode m = JSON.createObjectNode();
        m.set("artifacts", JSON.valueToTree(ended.get().artifacts()));
        manifest = m.toString();
      }
    } else if (job.isPresent()) {
      phase = Phase.OBSERVING;
    } else if (!held.unanswered().isEmpty()) {
      phase = Phase.IN_REVIEW;
      reviewReason = ReviewReason.DISPATCH_INTERRUPTED.wire();
    } else if (held.running().isPresent()) {
      phase = Phase.PENDING;
    } else {
      phase = Phase.IN_REVIEW;
      reviewReason = ReviewReason.WORKFLOW_CLOSED.wire();
    }
    String jobId =
        phase == Phase.PENDING || phase == Phase.IN_REVIEW
            ? null
            : ended
                .map(OperationResult::remoteJobId)
                .or(() -> job.map(JobSighting::jobId))
                .orElse(null);
    Long credits =
        jobId == null
            ? null
            : held.jobs().stream()
                .filter(s -> s.jobId().equals(jobId) && s.credits() != null)
                .map(JobSighting::credits)
                .findFirst()
                .orElse(null);
    String detail = "re-created " + phase.wire() + (jobId == null ? "" : " (job " + jobId + ")");
    boolean needsPerson = phase == Phase.IN_REVIEW;
    if (!apply) {
      return Optional.of(new Step(operationId, "recreated", "would " + detail, needsPerson));
    }
    ObjectNode evidence =
        JSON.createObjectNode()
            .put("why", "the ledger held no row; Temporal's history did")
            .put("history", held.summary());
    boolean created =
        ledger
            .recovery()
            .recreate(
                operation,
                phase,
                jobId,
                credits,
                manifest,
                note,
                reviewReason,
                owner,
                evidence.toString());
    if (created && held.running().isEmpty() && !phase.isTerminal()) {
      OperationRow row = ledger.get(operationId);
      if (phase == Phase.OBSERVING) {
        restarts.observing(row, "re-created from Temporal's history");
      } else if (phase == Phase.IN_REVIEW) {
        restarts.inReview(row, "re-created from Temporal's history");
      }
    }
    return Optional.of(
        new Step(
            operationId,
            created ? "recreated" : "changed",
            created ? detail : "a row appeared meanwhile: run again",
            needsPerson));
  }

  private boolean allHeld(List<DeliveredArtifact> artifacts) {
    return !artifacts.isEmpty()
        && artifacts.stream().allMatch(a -> store.holds(a.key(), a.bytes(), a.sha256()));
  }

  /** The operations of every generation workflow started or closed since {@code since}. */
  List<String> operationsSince(Instant since) {
    Set<String> ids = new LinkedHashSet<>();
    try {
      String query =
          "WorkflowType = 'GenerationWorkflow' AND (StartTime >= '"
              + since
              + "' OR CloseTime >= '"
              + since
              + "')";
      ByteString page = ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse response =
            client
                .getWorkflowServiceStubs()
                .blockingStub()
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .listWorkflowExecutions(
                    ListWorkflowExecutionsRequest.newBuilder()
                        .setNamespace(client.getOptions().getNamespace())
                        .setQuery(query)
                        .setNextPageToken(page)
                        .build());
        response.getExecutionsList().forEach(info -> add(ids, info));
        page = response.getNextPageToken();
      } while (!page.isEmpty());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED
          && e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
        throw e;
      }
      listedWithoutQuery(since, ids);
    }
    return List.copyOf(ids);
  }

  /**
   * On a server that answers no list query (the Java test server): every open execution, and the
   * closed ones that started since (a run closed since that started before is found by the ledger
   * walk when its row is unfinished).
   */
  private void listedWithoutQuery(Instant since, Set<String> ids) {
    StartTimeFilter window =
        StartTimeFilter.newBuilder()
            .setEarliestTime(Timestamp.newBuilder().setSeconds(since.getEpochSecond()))
            .setLatestTime(
                Timestamp.newBuilder().setSeconds(Instant.now().plusSeconds(3600).getEpochSecond()))
            .build();
    var stub = client.getWorkflowServiceStubs().blockingStub();
    ByteString page = ByteString.EMPTY;
    do {
      ListOpenWorkflowExecutionsResponse open =
          stub.listOpenWorkflowExecutions(
              ListOpenWorkflowExecutionsRequest.newBuilder()
                  .setNamespace(client.getOptions().getNamespace())
                  .setStartTimeFilter(window)
                  .setNextPageToken(page)
                  .build());
      open.getExecutionsList().forEach(info -> add(ids, info));
      page = open.getNextPageToken();
    } while (!page.isEmpty());
    do {
      ListClosedWorkflowExecutionsResponse closed =
          stub.listClosedWorkflowExecutions(
              ListClosedWorkflowExecutionsRequest.newBuilder()
                  .setNamespace(client.getOptions().getNamespace())
                  .setStartTimeFilter(window)
                  .setNextPageToken(page)
                  .build());
      closed.getExecutionsList().forEach(info -> add(ids, info));
      page = closed.getNextPageToken();
    } while (!page.isEmpty());
  }

  private static void add(Set<String> ids, WorkflowExecutionInfo info) {
    String workflowId = info.getExecution().getWorkflowId();
    if (info.getType().getName().equals("GenerationWorkflow")
        && workflowId.startsWith(GenerationWorkflow.WORKFLOW_ID_PREFIX)) {
      ids.add(workflowId.substring(GenerationWorkflow.WORKFLOW_ID_PREFIX.length()));
    }
  }
}
