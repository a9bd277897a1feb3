package com.genace.activities.recovery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.DeliveryManifest;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import java.util.Optional;

/**
 * What becomes of an unfinished operation whose workflow closed or was lost, decided on both
 * stores: the ledger's row and what Temporal's history holds ({@link HistoryEvidence}). In order:
 *
 * <ol>
 *   <li>a run completed with a result: the row ends as it did ({@code recovered_end}), delivered
 *       only when every artifact of its manifest is in the store at its deterministic key, with its
 *       size and SHA-256 (else the job is observed and delivered again);
 *   <li>a job the operation went on with (in a run's history, or the row's own): the row moves
 *       forward to observing it ({@code recovered}) if it is behind, and a new run observes and
 *       delivers it, as a continued run would: no POST;
 *   <li>nothing shows a job: the row goes to review ({@code workflow_closed}, with what Temporal
 *       holds in its details), or keeps the review it is in, and a new run waits there for an
 *       operator.
 * </ol>
 *
 * <p>Every write is fenced by the revision read and a free lease: a row that changed meanwhile, or
 * that a worker holds, is left to the next look ({@link Outcome#CHANGED}).
 */
public final class HistoryRepair {

  /** What the repair did. */
  public enum Outcome {
    /** The row ended as a run of the operation ended. */
    ENDED,
    /** A new run observes (or delivers) the job; the row moved forward to it if it was behind. */
    OBSERVING,
    /** The row went to review (or kept the one it was in); a new run waits there. */
    SWEPT_TO_REVIEW,
    /** The row is in review of its own job (such as one Genace forgot); a new run waits there. */
    REVIEW_KEPT,
    /** The row changed since it was read, or a live lease holds it: nothing done. */
    CHANGED
  }

  /** The outcome, and one line for the log and {@code ops recover}. */
  public record Repaired(Outcome outcome, String detail) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final ArtifactStore store;
  private final RunRestarts restarts;
  private final String owner;
  private final boolean apply;

  public HistoryRepair(
      OperationsLedger ledger, ArtifactStore store, RunRestarts restarts, String owner) {
    this(ledger, store, restarts, owner, true);
  }

  /**
   * @param apply false for a dry run: the same decisions, each reported as what it would do, and
   *     nothing written or started
   */
  public HistoryRepair(
      OperationsLedger ledger,
      ArtifactStore store,
      RunRestarts restarts,
      String owner,
      boolean apply) {
    this.ledger = ledger;
    this.store = store;
    this.restarts = restarts;
    this.owner = owner;
    this.apply = apply;
  }

  /**
   * Repairs {@code row} (as read, unfinished), whose workflow is {@code closeStatus} ({@code
   * MISSING} when Temporal holds none), from {@code history}.
   */
  public Repaired afterClose(OperationRow row, HistoryEvidence history, String closeStatus) {
    Optional<OperationResult> ended = history.ended();
    String undelivered = null;
    if (ended.isPresent()) {
      OperationResult result = ended.get();
      if (result.phase() != Phase.DELIVERED) {
        return end(row, history, closeStatus, result, null);
      }
      undelivered = DeliveryManifest.firstMissing(store, result.artifacts()).orElse(null);
      if (undelivered == null) {
        return end(row, history, closeStatus, result, DeliveryManifest.json(result.artifacts()));
      }
    }
    Optional<JobSighting> sighting = history.latestAcceptedJob();
    Optional<String> job = sighting.map(JobSighting::jobId).or(row::remoteJobId);
    if (job.isPresent()) {
      return observe(row, history, closeStatus, job.get(), sighting, undelivered);
    }
    // A row in review keeps its review (the sweep records the close beside it).
    ObjectNode evidence =
        evidence(row, history, closeStatus, "no job in either store")
            .put("reason", ReviewReason.WORKFLOW_CLOSED.wire());
    if (!apply) {
      return planned(Outcome.SWEPT_TO_REVIEW, "to review (workflow_closed): " + history.summary());
    }
    if (!ledger.sweepToReview(row.operationId(), row.revision(), owner, evidence.toString())) {
      return changed();
    }
    restarts.inReview(row, "its previous workflow was " + closeStatus);
    return new Repaired(
        Outcome.SWEPT_TO_REVIEW,
        (row.phase() == Phase.IN_REVIEW ? "review kept" : "to review (workflow_closed)")
            + ": "
            + history.summary());
  }

  /**
   * Repairs {@code row} (as read) behind a run that still runs: when the run went on with a job and
   * the row has not (it was restored to before the POST's response), the row moves forward to
   * observing that job ({@code recovered}), on the poll schedule at once, and the run's waiting
   * observation is completed by the poll loop as any other: the run never dispatches again. Empty
   * when the row is not behind.
   */
  public Optional<Repaired> behindRunning(OperationRow row, HistoryEvidence history) {
    Optional<JobSighting> job = history.latestAcceptedJob();
    if (job.isEmpty() || !behind(row, job.get().jobId())) {
      return Optional.empty();
    }
    String detail = "recovered to observing job " + job.get().describe() + " (its run goes on)";
    if (!apply) {
      return Optional.of(planned(Outcome.OBSERVING, detail));
    }
    ObjectNode evidence =
        evidence(row, history, "RUNNING", "the running run holds job " + job.get().describe())
            .put("remote_job_id", job.get().jobId())
            .put("run_id", job.get().runId())
            .put("source", job.get().source());
    boolean moved =
        ledger
            .recovery()
            .recoverObserving(
                row.operationId(),
                row.revision(),
                owner,
                job.get().jobId(),
                creditsOf(history, row, job.get().jobId()),
                evidence.toString());
    return Optional.of(moved ? new Repaired(Outcome.OBSERVING, detail) : changed());
  }

  /** Whether the row is short of going on with {@code job}: restored to before it was accepted. */
  private static boolean behind(OperationRow row, String job) {
    return row.phase() == Phase.PENDING
        || row.phase() == Phase.SUBMITTING
        || (row.phase() == Phase.IN_REVIEW && !row.remoteJobId().equals(Optional.of(job)));
  }

  private Repaired end(
      OperationRow row,
      HistoryEvidence history,
      String closeStatus,
      OperationResult result,
      String manifest) {
    String job =
        result.remoteJobId() != null
            ? result.remoteJobId()
            : history
                .latestAcceptedJob()
                .map(JobSighting::jobId)
                .orElse(row.remoteJobId().orElse(null));
    Long credits = creditsOf(history, row, job);
    ObjectNode evidence =
        evidence(row, history, closeStatus, "a run completed " + result.phase().wire());
    if (!apply) {
      return planned(Outcome.ENDED, result.phase().wire() + " as its run ended (job " + job + ")");
    }
    if (!ledger
        .recovery()
        .recoverEnd(
            row.operationId(),
            row.revision(),
            owner,
            result.phase(),
            job,
            credits,
            manifest,
            result.detail(),
            evidence.toString())) {
      return changed();
    }
    return new Repaired(
        Outcome.ENDED,
        result.phase().wire()
            + " as its run ended"
            + (job == null ? "" : " (job " + job + ")")
            + (manifest == null
                ? ""
                : ", " + result.artifacts().size() + " artifact(s) in the store"));
  }

  private Repaired observe(
      OperationRow row,
      HistoryEvidence history,
      String closeStatus,
      String job,
      Optional<JobSighting> sighting,
      String undelivered) {
    boolean behind = behind(row, job);
    if (!apply) {
      boolean observes =
          behind || row.phase() == Phase.OBSERVING || row.phase() == Phase.DELIVERING;
      return observes
          ? planned(
              Outcome.OBSERVING, (behind ? "recover to observing job " : "observe job ") + job)
          : planned(Outcome.REVIEW_KEPT, "keep the review of job " + job);
    }
    OperationRow current = row;
    if (behind) {
      String why =
          sighting
              .map(s -> "Temporal's history holds job " + s.describe())
              .orElse("the row holds job " + job);
      ObjectNode evidence = evidence(row, history, closeStatus, why).put("remote_job_id", job);
      sighting.ifPresent(s -> evidence.put("run_id", s.runId()).put("source", s.source()));
      if (!ledger
          .recovery()
          .recoverObserving(
              row.operationId(),
              row.revision(),
              owner,
              job,
              creditsOf(history, row, job),
              evidence.toString())) {
        return changed();
      }
      current = ledger.get(row.operationId());
    }
    if (current.phase() != Phase.OBSERVING && current.phase() != Phase.DELIVERING) {
      // In review with its own job (a review of the observation, such as a job Genace forgot).
      restarts.inReview(current, "its previous workflow was " + closeStatus);
      return new Repaired(Outcome.REVIEW_KEPT, "in review of job " + job + ", a new run waits");
    }
    restarts.observing(current, "its previous workflow was " + closeStatus);
    return new Repaired(
        Outcome.OBSERVING,
        (behind ? "recovered to observing job " : "a new run observes job ")
            + job
            + (undelivered == null ? "" : " (" + undelivered + ")"));
  }

  /** The credits the history knew for {@code job}, else the row's when it is the row's job. */
  private static Long creditsOf(HistoryEvidence history, OperationRow row, String job) {
    if (job == null) {
      return null;
    }
    Optional<Long> known = history.creditsOf(job);
    if (known.isPresent()) {
      return known.get();
    }
    return row.remoteJobId().equals(Optional.of(job)) ? row.credits().orElse(null) : null;
  }

  private static ObjectNode evidence(
      OperationRow row, HistoryEvidence history, String closeStatus, String why) {
    ObjectNode evidence =
        JSON.createObjectNode()
            .put("close_status", closeStatus)
            .put("workflow_id", GenerationWorkflow.workflowId(row.operationId()))
            .put("phase_before", row.phase().wire())
            .put("why", why)
            .put("history", history.summary());
    history.runs().stream()
        .filter(run -> run.result().isPresent())
        .reduce((first, second) -> second)
        .ifPresent(run -> evidence.put("run_id", run.runId()));
    return evidence;
  }

  private static Repaired planned(Outcome outcome, String detail) {
    return new Repaired(outcome, "would " + detail);
  }

  private static Repaired changed() {
    return new Repaired(
        Outcome.CHANGED,
        "the row changed since it was read, or a worker holds it: left to the next look");
  }
}
