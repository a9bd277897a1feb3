package com.genace.activities.recovery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.DeliveryManifest;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import java.util.Optional;

/**
 * A row the ledger lost (a restore older than the operation), written again from Temporal's history
 * at the phase it shows ({@code recreated}): ended as a run ended (delivered only when the store
 * holds every artifact), observing the job a run went on with, in review when a dispatch started
 * with no recorded response (or no run remains to go on), else pending. A closed run is followed by
 * a new one that observes or waits in the review; a running run goes on by itself.
 */
public final class RowRecreation {

  /** What became of the lost row, and one line for the log and {@code ops recover}. */
  public record Recreated(String action, String detail, boolean needsPerson) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final ArtifactStore store;
  private final RunRestarts restarts;
  private final String owner;
  private final boolean apply;

  /**
   * @param apply false for a dry run: the same decision, reported as what it would do
   */
  public RowRecreation(
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

  /** Writes the row of {@code held}'s operation again, which the ledger does not hold. */
  public Recreated recreate(HistoryEvidence held) {
    String operationId = held.operationId();
    Optional<GenerationRequest> request = held.request();
    if (request.isEmpty()) {
      return new Recreated(
          "unreadable",
          "no row, and no readable start input in Temporal's history: " + held.summary(),
          true);
    }
    Optional<OperationResult> ended = held.ended();
    Optional<JobSighting> job = held.latestAcceptedJob();
    Phase phase;
    String manifest = null;
    String note = null;
    String reviewReason = null;
    if (ended.isPresent()
        && (ended.get().phase() != Phase.DELIVERED
            || DeliveryManifest.firstMissing(store, ended.get().artifacts()).isEmpty())) {
      phase = ended.get().phase();
      note = ended.get().detail();
      if (phase == Phase.DELIVERED) {
        manifest = DeliveryManifest.json(ended.get().artifacts());
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
    Long credits = jobId == null ? null : held.creditsOf(jobId).orElse(null);
    String detail = "re-created " + phase.wire() + (jobId == null ? "" : " (job " + jobId + ")");
    boolean needsPerson = phase == Phase.IN_REVIEW;
    if (!apply) {
      return new Recreated("recreated", "would " + detail, needsPerson);
    }
    String evidence =
        JSON.createObjectNode()
            .put("why", "the ledger held no row; Temporal's history did")
            .put("history", held.summary())
            .toString();
    GenerationRequest r = request.get();
    boolean created =
        ledger
            .recovery()
            .recreate(
                new NewOperation(operationId, r.model(), r.inputJson(), r.account()),
                phase,
                jobId,
                credits,
                manifest,
                note,
                reviewReason,
                owner,
                evidence);
    if (!created) {
      return new Recreated("changed", "a row appeared meanwhile: run again", needsPerson);
    }
    if (held.running().isEmpty() && !phase.isTerminal()) {
      var row = ledger.get(operationId);
      if (phase == Phase.OBSERVING) {
        restarts.observing(row, "re-created from Temporal's history");
      } else if (phase == Phase.IN_REVIEW) {
        restarts.inReview(row, "re-created from Temporal's history");
      }
    }
    return new Recreated("recreated", detail, needsPerson);
  }
}
