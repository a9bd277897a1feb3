package com.genace.activities.review;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceException;
import com.genace.activities.genace.RemoteJob;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.stats.ActivityStats;
import com.genace.client.model.IdentifierRule;
import com.genace.client.model.Phase;
import com.genace.client.review.EvidenceJob;
import com.genace.client.review.ReviewEvidence;
import com.genace.workflows.review.EvidenceActivities;
import com.genace.workflows.review.JobCheck;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads Genace for a review's evidence; never creates anything.
 *
 * <ol>
 *   <li>the job behind an id seen in the failed exchange, if any;
 *   <li>the optional search by operation id, repeated every {@code searchInterval} while it lists
 *       nothing, for at most {@code searchWindow} (it may lag creation);
 *   <li>the evidence is kept on the review case in the ledger;
 *   <li>with self-settling on, the search offered and exactly one job carrying the operation id,
 *       that job is named to settle the review. Without the search, a job seen in the exchange
 *       proves that one exists, not that it is the only one, so the review waits for an operator.
 * </ol>
 */
public final class EvidenceActivitiesImpl implements EvidenceActivities {

  private static final Logger log = LoggerFactory.getLogger(EvidenceActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final GenaceClient genace;
  private final ReviewSettings settings;
  private final ActivityStats stats;

  public EvidenceActivitiesImpl(
      OperationsLedger ledger, GenaceClient genace, ReviewSettings settings, ActivityStats stats) {
    this.ledger = ledger;
    this.genace = genace;
    this.settings = settings;
    this.stats = stats;
  }

  @Override
  public ReviewEvidence gatherEvidence(String operationId, String seenJobId) {
    Optional<Instant> review = openReview(operationId);
    List<EvidenceJob> jobs = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    if (seenJobId != null && IdentifierRule.problem(seenJobId, "job id").isEmpty()) {
      lookUpSeenJob(seenJobId, jobs, notes);
    }
    long started = System.nanoTime();
    String search = searchRepeatedly(operationId, jobs);
    long searchedSeconds = Math.round((System.nanoTime() - started) / 1e9);
    ReviewEvidence gathered =
        new ReviewEvidence(operationId, jobs, search, searchedSeconds, notes, null);
    List<EvidenceJob> candidates = gathered.candidates();
    String settleWith =
        settings.autoReconcile() && ReviewEvidence.SEARCHED.equals(search) && candidates.size() == 1
            ? candidates.get(0).id()
            : null;
    ReviewEvidence evidence =
        new ReviewEvidence(operationId, jobs, search, searchedSeconds, notes, settleWith);
    keep(operationId, review, evidence);
    stats.reviewOpened();
    if (evidence.duplicates()) {
      stats.duplicateJobsFound();
      // A WARN: the review waits for an operator, and the workflow's one ERROR says so with this.
      log.warn("operation {} in review: {}", operationId, evidence.summary());
    } else {
      log.info("operation {} in review: {}", operationId, evidence.summary());
    }
    return evidence;
  }

  @Override
  public ReviewEvidence gatherEvidenceAgain(String operationId, List<String> seenJobIds) {
    Optional<Instant> review = openReview(operationId);
    List<EvidenceJob> jobs = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    List<String> unread = new ArrayList<>();
    for (String seen : seenJobIds) {
      lookUpKnownJob(operationId, seen, EvidenceJob.EXCHANGE, jobs, notes, unread);
    }
    for (String denied : ledger.jobIdsOfDeniedWrites(operationId)) {
      lookUpKnownJob(operationId, denied, EvidenceJob.LEDGER, jobs, notes, unread);
    }
    long started = System.nanoTime();
    String search = searchRepeatedly(operationId, jobs);
    long searchedSeconds = Math.round((System.nanoTime() - started) / 1e9);
    ReviewEvidence evidence =
        new ReviewEvidence(operationId, jobs, search, searchedSeconds, notes, null, unread);
    Optional<String> unchecked = evidence.unchecked();
    if (unchecked.isPresent() && evidence.candidates().isEmpty()) {
      // It shows nothing new and proves nothing: the review keeps the evidence it had, and the
      // workflow refuses not_submitted with the reason.
      log.warn(
          "operation {} in review, could not be checked again: {}", operationId, unchecked.get());
      return evidence;
    }
    keep(operationId, review, evidence);
    log.info("operation {} in review, gathered again: {}", operationId, evidence.summary());
    return evidence;
  }

  /** When the operation's open review opened, read before anything is gathered for it. */
  private Optional<Instant> openReview(String operationId) {
    return ledger
        .find(operationId)
        .filter(row -> row.phase() == Phase.IN_REVIEW)
        .flatMap(OperationRow::reviewOpenedAt);
  }

  /** Keeps the evidence on the review it was gathered for, if that one is still open. */
  private void keep(String operationId, Optional<Instant> review, ReviewEvidence evidence) {
    boolean kept =
        review.isPresent()
            && ledger.recordReviewEvidence(
                operationId, review.get(), json(evidence), evidence.summary());
    if (!kept) {
      log.info(
          "operation {}: evidence not kept, the review it was gathered for is not open",
          operationId);
    }
  }

  /**
   * A job id this operation's own exchanges or writes carried: a job of this operation, as Genace
   * describes it when it can, else as an unread one (Genace's silence is no proof it is gone).
   */
  private void lookUpKnownJob(
      String operationId,
      String jobId,
      String seenIn,
      List<EvidenceJob> jobs,
      List<String> notes,
      List<String> unread) {
    if (jobs.stream().anyMatch(known -> known.id().equals(jobId))
        || IdentifierRule.problem(jobId, "job id").isPresent()) {
      return;
    }
    String why;
    try {
      Optional<RemoteJob> job = genace.lookUp(jobId);
      if (job.isPresent()) {
        jobs.add(evidenceJob(job.get(), seenIn).carrying(operationId));
        return;
      }
      why = "unknown to Genace";
    } catch (GenaceException e) {
      why = "could not be read: " + e.getMessage();
      unread.add(jobId + ": " + e.getMessage());
    }
    jobs.add(new EvidenceJob(jobId, EvidenceJob.UNREAD, null, operationId, seenIn));
    notes.add("job " + jobId + " seen in the " + seenIn + " is " + why);
  }

  @Override
  public JobCheck checkFoundJob(String operationId, String remoteJobId) {
    Optional<RemoteJob> job;
    try {
      job = genace.lookUp(remoteJobId);
    } catch (GenaceException e) {
      throw ApplicationFailure.newFailure(e.getMessage(), "GenaceUnavailable");
    }
    if (job.isEmpty()) {
      return new JobCheck("Genace does not know job " + remoteJobId);
    }
    String carried = job.get().operationId();
    if (carried != null && !carried.equals(operationId)) {
      return new JobCheck(
          "job " + remoteJobId + " belongs to operation " + carried + ", not " + operationId);
    }
    return JobCheck.accepted();
  }

  private void lookUpSeenJob(String seenJobId, List<EvidenceJob> jobs, List<String> notes) {
    try {
      Optional<RemoteJob> seen = genace.lookUp(seenJobId);
      if (seen.isPresent()) {
        jobs.add(evidenceJob(seen.get(), EvidenceJob.EXCHANGE));
      } else {
        notes.add("job " + seenJobId + " seen in the exchange is unknown to Genace");
      }
    } catch (GenaceException e) {
      notes.add("job " + seenJobId + " seen in the exchange could not be read: " + e.getMessage());
    }
  }

  /**
   * @return {@link ReviewEvidence#SEARCHED}, {@link ReviewEvidence#NOT_OFFERED} or {@code failed:
   *     <why>}
   */
  private String searchRepeatedly(String operationId, List<EvidenceJob> jobs) {
    long deadline = System.nanoTime() + settings.searchWindow().toNanos();
    String failure = null;
    boolean answered = false;
    while (true) {
      try {
        Optional<List<RemoteJob>> listed = genace.search(operationId);
        if (listed.isEmpty()) {
          return ReviewEvidence.NOT_OFFERED;
        }
        answered = true;
        for (RemoteJob job : listed.get()) {
          if (jobs.stream().noneMatch(known -> known.id().equals(job.id()))) {
            jobs.add(evidenceJob(job, EvidenceJob.SEARCH));
          }
        }
      } catch (GenaceException e) {
        // A 429 or 5xx now says nothing about the jobs: search again within the window.
        failure = e.getMessage();
      }
      boolean found = jobs.stream().anyMatch(job -> Objects.equals(job.operationId(), operationId));
      if (found || System.nanoTime() - deadline >= 0) {
        return answered ? ReviewEvidence.SEARCHED : "failed: " + failure;
      }
      pause();
    }
  }

  private void pause() {
    try {
      Thread.sleep(settings.searchInterval().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("interrupted while searching Genace", "Interrupted");
    }
    Activity.getExecutionContext().heartbeat(null);
  }

  private static EvidenceJob evidenceJob(RemoteJob job, String seenIn) {
    return new EvidenceJob(
        job.id(), job.status().wire(), job.createdAt(), job.operationId(), seenIn);
  }

  private static String json(ReviewEvidence evidence) {
    try {
      return JSON.writeValueAsString(evidence);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not write the evidence as JSON", e);
    }
  }
}
