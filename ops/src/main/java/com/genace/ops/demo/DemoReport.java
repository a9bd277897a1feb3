package com.genace.ops.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.TransitionRow;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.ReviewDecision;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.testkit.simulator.SimulatorStats;
import com.genace.workflows.dispatch.DispatchOutcome;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * What the demo did, counted from the ledger's history and the simulator's own records (what Genace
 * saw), not from what the workers believe.
 *
 * @param duplicatePosts POSTs for an operation beyond its first that neither a 429 answer nor an
 *     operator's {@code not_submitted} decision explains: must be zero (no operation is POSTed
 *     twice unless an operator said it was not submitted)
 * @param duplicateRenders jobs Genace created for an operation beyond its first
 */
record DemoReport(
    int operations,
    long delivered,
    long failed,
    long abandoned,
    long uncertainOpened,
    long uncertainResolved,
    long uncertainSelfSettled,
    long postsSent,
    long jobsCreated,
    long responsesLost,
    long rateLimitedPosts,
    long duplicatePosts,
    long duplicateRenders,
    long elapsedMs,
    List<Outcome> outcomes) {

  /** One operation's end, with what happened on the way. */
  record Outcome(
      String operationId,
      String phase,
      String remoteJobId,
      long posts,
      List<String> reviews,
      String failure) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_FAILURES_LISTED = 5;

  static DemoReport collect(
      List<String> operationIds, OperationsLedger ledger, GenaceSimulator genace, long elapsedMs) {
    SimulatorStats stats = genace.stats();
    long delivered = 0;
    long failed = 0;
    long abandoned = 0;
    long opened = 0;
    long resolved = 0;
    long selfSettled = 0;
    long rateLimited = 0;
    long duplicatePosts = 0;
    long duplicateRenders = 0;
    List<Outcome> outcomes = new ArrayList<>();
    for (String id : operationIds) {
      OperationRow row = ledger.get(id);
      switch (row.phase()) {
        case DELIVERED -> delivered++;
        case FAILED -> failed++;
        case ABANDONED -> abandoned++;
        default -> {}
      }
      long limitedHere = 0;
      long notSubmittedHere = 0;
      List<String> reviews = new ArrayList<>();
      for (TransitionRow transition : ledger.history(id)) {
        if (!transition.accepted()) {
          continue;
        }
        JsonNode details = parse(transition.detailsJson());
        switch (transition.event()) {
          case "review_opened" -> opened++;
          case "review_resolved" -> {
            resolved++;
            String decision = details.path("decision").asText();
            boolean settledItself =
                GenerationWorkflow.RECONCILER.equals(details.path("resolved_by").asText());
            if (settledItself) {
              selfSettled++;
            }
            reviews.add(settledItself ? decision + " (settled itself)" : decision);
            if (decision.equals(ReviewDecision.NOT_SUBMITTED.wire())) {
              notSubmittedHere++;
            }
          }
          case "not_sent" -> {
            if (DispatchOutcome.RATE_LIMITED
                .name()
                .equalsIgnoreCase(details.path("outcome").asText())) {
              limitedHere++;
            }
          }
          default -> {}
        }
      }
      long posts = stats.postsFor(id);
      rateLimited += limitedHere;
      duplicatePosts += Math.max(0, posts - 1 - limitedHere - notSubmittedHere);
      duplicateRenders += Math.max(0, genace.jobsForOperation(id).size() - 1);
      outcomes.add(
          new Outcome(
              id,
              row.phase().wire(),
              row.remoteJobId().orElse(null),
              posts,
              List.copyOf(reviews),
              row.failureReason().orElse(null)));
    }
    return new DemoReport(
        operationIds.size(),
        delivered,
        failed,
        abandoned,
        opened,
        resolved,
        selfSettled,
        stats.postsTotal(),
        stats.jobsCreated(),
        stats.responsesLost(),
        rateLimited,
        duplicatePosts,
        duplicateRenders,
        elapsedMs,
        List.copyOf(outcomes));
  }

  ObjectNode toJson() {
    ObjectNode json = JSON.createObjectNode();
    json.put("operations", operations);
    json.put("delivered", delivered);
    json.put("failed", failed);
    json.put("abandoned", abandoned);
    json.put("uncertain_opened", uncertainOpened);
    json.put("uncertain_resolved", uncertainResolved);
    json.put("uncertain_self_settled", uncertainSelfSettled);
    json.put("posts_sent", postsSent);
    json.put("jobs_created", jobsCreated);
    json.put("responses_lost", responsesLost);
    json.put("rate_limited_posts", rateLimitedPosts);
    json.put("duplicate_posts", duplicatePosts);
    json.put("duplicate_renders", duplicateRenders);
    json.put("elapsed_ms", elapsedMs);
    var reviewed = json.putArray("reviewed");
    for (Outcome outcome : outcomes) {
      if (!outcome.reviews().isEmpty()) {
        ObjectNode entry = reviewed.addObject();
        entry.put("operation_id", outcome.operationId());
        entry.put("phase", outcome.phase());
        entry.put("remote_job_id", outcome.remoteJobId());
        entry.put("posts", outcome.posts());
        outcome.reviews().forEach(entry.putArray("decisions")::add);
      }
    }
    return json;
  }

  void printSummary(PrintWriter out) {
    out.printf("%nDone: %d operations in %.1f s, all ended.%n", operations, elapsedMs / 1000.0);
    out.printf("  delivered    %4d   artifacts copied to the local store%n", delivered);
    out.printf("  failed       %4d   renders that failed on Genace (10%% simulated)%n", failed);
    out.printf("  abandoned    %4d%n", abandoned);
    out.printf(
        "  reviews      %4d   opened (outcome of the POST unknown): %d settled themselves from"
            + " Genace's evidence, %d resolved by the operator%n",
        uncertainOpened, uncertainSelfSettled, uncertainResolved - uncertainSelfSettled);
    out.printf(
        "  POSTs        %4d   sent to Genace: %d created a job (%d of them lost their response);"
            + " %d created nothing (answered 429 or 503) and went again later%n",
        postsSent, jobsCreated, responsesLost, postsSent - jobsCreated);
    out.printf(
        "  duplicates   %4d   POSTs not explained by a 429 or an operator's not_submitted;"
            + " %d duplicate renders%n",
        duplicatePosts, duplicateRenders);
    List<Outcome> reviewed = outcomes.stream().filter(o -> !o.reviews().isEmpty()).toList();
    List<Outcome> failedOnly =
        outcomes.stream().filter(o -> o.reviews().isEmpty() && o.failure() != null).toList();
    if (reviewed.isEmpty() && failedOnly.isEmpty()) {
      return;
    }
    out.println();
    out.println("Operations worth a look:");
    out.printf(
        "  %-10s %-10s %-28s %5s  %s%n", "OPERATION", "PHASE", "REMOTE JOB", "POSTS", "STORY");
    reviewed.forEach(outcome -> printOutcome(out, outcome));
    failedOnly.stream().limit(MAX_FAILURES_LISTED).forEach(outcome -> printOutcome(out, outcome));
    if (failedOnly.size() > MAX_FAILURES_LISTED) {
      out.printf("  ... and %d more failed renders%n", failedOnly.size() - MAX_FAILURES_LISTED);
    }
  }

  private static void printOutcome(PrintWriter out, Outcome outcome) {
    out.printf(
        "  %-10s %-10s %-28s %5d  %s%n",
        outcome.operationId(),
        outcome.phase(),
        outcome.remoteJobId() == null ? "-" : outcome.remoteJobId(),
        outcome.posts(),
        story(outcome));
  }

  private static String story(Outcome outcome) {
    List<String> parts = new ArrayList<>();
    for (String decision : outcome.reviews()) {
      parts.add("review -> " + decision);
    }
    if (outcome.failure() != null) {
      parts.add("failed: " + outcome.failure());
    }
    return String.join("; ", parts);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      return JSON.createObjectNode();
    }
  }
}
