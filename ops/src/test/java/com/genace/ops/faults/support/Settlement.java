package com.genace.ops.faults.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.GenerationWorkflow;
import com.genace.client.review.ReviewResolution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.client.WorkflowExecutionDescription;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The end of a drill: waits until every operation has ended, resolving reviews as an operator would
 * (a job found on Genace's side, or "not submitted" when there is none), then counts from the
 * outside what went wrong.
 *
 * <p>An operation counts as lost unless the ledger shows it terminal, Temporal shows its workflow
 * completed, and, when delivered, every artifact of its manifest is stored with its sha256.
 */
public final class Settlement {

  /** A review is left alone this long, so that a POST still in flight has landed first. */
  public static final Duration REVIEW_QUIET_PERIOD =
      Duration.ofSeconds(DrillStack.READ_TIMEOUT_SECONDS + 2);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DrillStack stack;

  public Settlement(DrillStack stack) {
    this.stack = stack;
  }

  public DrillFigures run(Duration limit) throws InterruptedException {
    long started = System.nanoTime();
    Set<String> open = new TreeSet<>(stack.operations());
    long deadline = started + limit.toNanos();
    while (!open.isEmpty() && System.nanoTime() < deadline) {
      open.removeIf(this::settled);
      if (!open.isEmpty()) {
        Thread.sleep(1000);
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    try {
      return count(seconds);
    } catch (SQLException e) {
      throw new AssertionError("the ledger could not be read after the drill", e);
    }
  }

  /** Whether the operation has ended; resolves its review when it waits in one. */
  private boolean settled(String operationId) {
    try {
      LedgerView.Operation row = stack.ledger.operations().get(operationId);
      if (row == null) {
        return false;
      }
      if (row.terminal()) {
        return workflowStatus(operationId)
            == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED;
      }
      if (row.phase().equals("in_review")
          && row.reviewOpenedAt()
              .map(at -> at.plus(REVIEW_QUIET_PERIOD).isBefore(Instant.now()))
              .orElse(false)) {
        resolve(operationId);
      }
      return false;
    } catch (SQLException | RuntimeException e) {
      // The ledger or Temporal may still be coming back from the drill's fault: look again.
      return false;
    }
  }

  private void resolve(String operationId) {
    List<String> jobs = stack.simulatorControl.jobsFor(operationId);
    ReviewResolution resolution =
        jobs.isEmpty()
            ? new ReviewResolution(
                "not_submitted", null, "drill: no job on Genace", "drill-operator")
            : new ReviewResolution(
                "found_remote_job", jobs.get(0), "drill: job seen on Genace", "drill-operator");
    stack.client.resolve(operationId, resolution);
  }

  private WorkflowExecutionStatus workflowStatus(String operationId) {
    return describe(operationId).getStatus();
  }

  private WorkflowExecutionDescription describe(String operationId) {
    return stack
        .connection
        .workflowClient()
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId(operationId))
        .describe();
  }

  private DrillFigures count(double seconds) throws SQLException {
    List<String> problems = new ArrayList<>();
    Map<String, LedgerView.Operation> rows = stack.ledger.operations();
    Map<String, Long> posts = stack.simulatorControl.postsByOperation();
    Map<String, Long> notSubmitted = stack.ledger.notSubmittedResolutions();
    Map<String, Long> rateLimited = stack.ledger.rateLimitedAnswers();
    long duplicates = 0;
    int lost = 0;
    for (String id : stack.operations()) {
      long allowedPosts = 1 + notSubmitted.getOrDefault(id, 0L) + rateLimited.getOrDefault(id, 0L);
      long extraPosts = Math.max(0, posts.getOrDefault(id, 0L) - allowedPosts);
      long extraJobs =
          Math.max(
              0, stack.simulatorControl.jobsFor(id).size() - 1 - notSubmitted.getOrDefault(id, 0L));
      if (extraPosts + extraJobs > 0) {
        duplicates += Math.max(extraPosts, extraJobs);
        problems.add(
            id
                + ": "
                + posts.getOrDefault(id, 0L)
                + " POSTs, "
                + (1 + extraJobs)
                + "+ jobs, "
                + allowedPosts
                + " explained");
      }
      String loss = lossOf(id, rows.get(id));
      if (loss != null) {
        lost++;
        problems.add(id + ": lost (" + loss + ")");
      }
    }
    List<String> stale = stack.ledger.staleWritesApplied();
    problems.addAll(stale);
    return new DrillFigures(
        stack.drill,
        stack.seed,
        stack.operations().size(),
        duplicates,
        lost,
        stack.ledger.deniedWrites(),
        stale.size(),
        seconds,
        Map.of("reviews", Long.toString(stack.ledger.reviewsOpened())),
        problems);
  }

  /** Null when the operation ended properly; otherwise what is wrong with it. */
  private String lossOf(String id, LedgerView.Operation row) {
    if (row == null) {
      return "no ledger row";
    }
    if (!row.terminal()) {
      return "ledger phase " + row.phase() + ", " + pendingActivities(id);
    }
    WorkflowExecutionStatus status;
    try {
      status = workflowStatus(id);
    } catch (RuntimeException e) {
      return "Temporal does not know it: " + e.getMessage();
    }
    if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
      return "workflow " + status;
    }
    if (row.phase().equals("delivered")) {
      return missingArtifact(row.manifest().orElse("{}"));
    }
    return null;
  }

  /**
   * What the run waits on, for a drill that failed: each pending activity's type, attempt, state,
   * last worker and last failure.
   */
  private String pendingActivities(String id) {
    try {
      List<PendingActivityInfo> pending =
          describe(id).getRawDescription().getPendingActivitiesList();
      if (pending.isEmpty()) {
        return "no activity pending";
      }
      List<String> described = new ArrayList<>();
      for (PendingActivityInfo activity : pending) {
        described.add(
            activity.getActivityType().getName()
                + " attempt "
                + activity.getAttempt()
                + " "
                + activity.getState()
                + " on "
                + (activity.getLastWorkerIdentity().isEmpty()
                    ? "no worker yet"
                    : activity.getLastWorkerIdentity())
                + (activity.hasLastFailure()
                    ? " after " + activity.getLastFailure().getMessage()
                    : ""));
      }
      return "pending " + String.join("; ", described);
    } catch (RuntimeException e) {
      return "pending activities unknown: " + e.getMessage();
    }
  }

  /** Null when every artifact of the manifest is stored with its size and sha256. */
  private String missingArtifact(String manifest) {
    try {
      JsonNode artifacts = JSON.readTree(manifest).path("artifacts");
      if (artifacts.isEmpty()) {
        return "delivered with an empty manifest";
      }
      for (JsonNode artifact : artifacts) {
        Path file = stack.artifacts.resolve(artifact.path("key").asText());
        if (!Files.isRegularFile(file)) {
          return "delivered but " + file + " is not stored";
        }
        String sha256 =
            HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        if (!sha256.equals(artifact.path("sha256").asText())) {
          return "delivered but " + file + " has sha256 " + sha256;
        }
      }
      return null;
    } catch (IOException | NoSuchAlgorithmException e) {
      return "manifest unreadable: " + e.getMessage();
    }
  }
}
