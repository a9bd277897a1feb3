package com.genace.ops.demo;

import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.client.GenerationClient;
import com.genace.client.OperationView;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.EvidenceJob;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import com.genace.testkit.simulator.GenaceSimulator;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Resolves reviews as an operator would, once the review waits for one (its evidence gathered and
 * it did not settle itself): the evidence first; without a job in it, a look on Genace's side (here
 * the simulator's job list by operation id). A job found means {@code found_remote_job} with its
 * id, none means {@code not_submitted}. The decision goes through the same validated update as
 * {@code ./genace ops resolve}.
 */
final class DemoOperator {

  static final String NAME = "demo-operator";

  private final OperationsLedger ledger;
  private final GenaceSimulator genace;
  private final GenerationClient client;
  private final PostOutcomes posts;
  private final Consumer<String> story;

  /** Reviews already resolved, by operation and opening time: a later review is a new one. */
  private final Map<String, Instant> handled = new ConcurrentHashMap<>();

  DemoOperator(
      OperationsLedger ledger,
      GenaceSimulator genace,
      GenerationClient client,
      PostOutcomes posts,
      Consumer<String> story) {
    this.ledger = ledger;
    this.genace = genace;
    this.client = client;
    this.posts = posts;
    this.story = story;
  }

  /** One look at the review queue; resolves what it can. */
  void tick(int limit) {
    for (OperationRow row : ledger.list(Optional.of(Phase.IN_REVIEW), limit)) {
      Instant opened = row.reviewOpenedAt().orElse(row.updatedAt());
      if (opened.equals(handled.get(row.operationId()))) {
        continue;
      }
      resolve(row, opened);
    }
  }

  private void resolve(OperationRow row, Instant opened) {
    String id = row.operationId();
    OperationView view = client.describe(id);
    if (!view.awaitsOperator()) {
      return; // still gathering evidence, or settling itself
    }
    ReviewEvidence evidence = view.review() == null ? null : view.review().evidence();
    List<String> jobs =
        evidence != null && !evidence.candidates().isEmpty()
            ? evidence.candidates().stream().map(EvidenceJob::id).toList()
            : genace.jobsForOperation(id);
    ReviewDecision decision =
        jobs.isEmpty() ? ReviewDecision.NOT_SUBMITTED : ReviewDecision.FOUND_REMOTE_JOB;
    String job = jobs.isEmpty() ? null : jobs.get(jobs.size() - 1);
    String reason =
        jobs.isEmpty()
            ? "Genace lists no job for this operation id"
            : "Genace lists job " + job + " for this operation id";
    String evidenceSaid = evidence == null ? "no evidence" : "evidence: " + evidence.summary();
    try {
      client.resolve(id, new ReviewResolution(decision.wire(), job, reason, NAME));
    } catch (ResolutionRefusedException notYet) {
      // The ledger shows the review a moment before the workflow accepts decisions: next tick.
      return;
    }
    handled.put(id, opened);
    ReviewReason why =
        view.review() != null
            ? view.review().reason()
            : row.reviewReason().map(ReviewReason::parse).orElse(ReviewReason.POST_OUTCOME_UNKNOWN);
    story.accept(
        "review: "
            + id
            + ": "
            + explain(why, posts.last(id))
            + " ("
            + evidenceSaid
            + "); operator "
            + (job == null
                ? "found nothing on Genace -> resolved not_submitted (dispatch again)"
                : "found " + job + " on Genace -> resolved found_remote_job"));
  }

  /**
   * A review's cause in an operator's words: for an unknown POST outcome, whether Genace answered
   * (with which status) or no response came back, as the last POST's outcome says.
   */
  static String explain(ReviewReason reason, Optional<CreateOutcome> lastPost) {
    if (reason != ReviewReason.POST_OUTCOME_UNKNOWN) {
      return reason.wire().replace('_', ' ');
    }
    if (lastPost.orElse(null) instanceof CreateOutcome.Unknown unknown) {
      OptionalInt status = unknown.httpStatus();
      return status.isPresent()
          ? "POST answered " + status.getAsInt() + ", outcome unknown"
          : "POST response lost";
    }
    return "POST outcome unknown";
  }
}
