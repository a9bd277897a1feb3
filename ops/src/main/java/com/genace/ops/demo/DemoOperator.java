package com.genace.ops.demo;

import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.model.Phase;
import com.genace.model.ReviewDecision;
import com.genace.review.EvidenceJob;
import com.genace.review.ReviewEvidence;
import com.genace.review.ReviewResolution;
import com.genace.simulator.GenaceSimulator;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.OperationView;
import com.genace.workflows.ResolutionRefusedException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  private final Consumer<String> story;

  /** Reviews already resolved, by operation and opening time: a later review is a new one. */
  private final Map<String, Instant> handled = new ConcurrentHashMap<>();

  DemoOperator(
      OperationsLedger ledger,
      GenaceSimulator genace,
      GenerationClient client,
      Consumer<String> story) {
    this.ledger = ledger;
    this.genace = genace;
    this.client = client;
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
    String why = row.reviewReason().orElse("review");
    String detail = row.dispatchDetail().orElse("");
    story.accept(
        "review: "
            + id
            + ": "
            + explain(why, detail)
            + " ("
            + evidenceSaid
            + "); operator "
            + (job == null
                ? "found nothing on Genace -> resolved not_submitted (dispatch again)"
                : "found " + job + " on Genace -> resolved found_remote_job"));
  }

  /** A review's cause in an operator's words. */
  static String explain(String reason, String detail) {
    String lower = detail.toLowerCase(java.util.Locale.ROOT);
    if (reason.equals("post_outcome_unknown")) {
      if (lower.contains("503") || lower.contains("unavailable")) {
        return "POST answered 503, outcome unknown";
      }
      if (lower.contains("reset")
          || lower.contains("closed")
          || lower.contains("eof")
          || lower.contains("after sending")) {
        return "POST response lost";
      }
      return "POST outcome unknown";
    }
    return reason.replace('_', ' ');
  }
}
