package com.genace.activities.recovery;

import com.genace.client.GenerationRequest;
import com.genace.client.OperationResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What Temporal holds for one operation: every run of {@code generation/<operationId>} that could
 * be found (closed and running, every chain of continue-as-new), oldest first. The other store of
 * the operation's truth beside the ledger: a POST's response, the job it created, the credits, the
 * delivery's manifest and how each run ended.
 */
public record HistoryEvidence(String operationId, List<RunRecord> runs) {

  public HistoryEvidence {
    runs =
        runs.stream()
            .sorted(
                Comparator.comparing(
                    RunRecord::startedAt, Comparator.nullsFirst(Comparator.naturalOrder())))
            .toList();
  }

  /** Temporal holds no run of the operation (never started, or its history was lost). */
  public static HistoryEvidence none(String operationId) {
    return new HistoryEvidence(operationId, List.of());
  }

  public boolean found() {
    return !runs.isEmpty();
  }

  /** The run that is still open, if any. */
  public Optional<RunRecord> running() {
    return runs.stream().filter(RunRecord::running).reduce((first, second) -> second);
  }

  /**
   * Whether a run shows the operation was in the ledger once ({@link RunRecord#registered}), or was
   * continued (which only a registered operation is): a row missing now was lost, not yet to come.
   */
  public boolean registered() {
    return runs.size() > 1 || runs.stream().anyMatch(RunRecord::registered);
  }

  /** The request the operation was started with, as the earliest readable run holds it. */
  public Optional<GenerationRequest> request() {
    return runs.stream().map(RunRecord::request).filter(r -> r != null).findFirst();
  }

  /** Every remote job id the runs hold, each once (its first sighting), oldest first. */
  public List<JobSighting> jobs() {
    Map<String, JobSighting> byId = new LinkedHashMap<>();
    for (RunRecord run : runs) {
      for (JobSighting job : run.jobs()) {
        byId.merge(job.jobId(), job, (kept, later) -> kept.credits() != null ? kept : later);
      }
    }
    return List.copyOf(byId.values());
  }

  /** The credits a run's history recorded for {@code jobId}, if any did. */
  public Optional<Long> creditsOf(String jobId) {
    return jobs().stream()
        .filter(job -> job.jobId().equals(jobId) && job.credits() != null)
        .map(JobSighting::credits)
        .findFirst();
  }

  /**
   * The job the operation went on with: the latest one seen (a second acceptance, after an
   * operator's {@code not_submitted}, replaces the first), with the credits any sighting of it
   * carried.
   */
  public Optional<JobSighting> latestJob() {
    List<JobSighting> jobs = jobs();
    if (jobs.isEmpty()) {
      return Optional.empty();
    }
    String latest = null;
    for (RunRecord run : runs) {
      for (JobSighting job : run.jobs()) {
        latest = job.jobId();
      }
    }
    String id = latest;
    return jobs.stream().filter(job -> job.jobId().equals(id)).findFirst();
  }

  /** {@link #latestJob}, if the operation went on with it ({@link JobSighting#accepted}). */
  public Optional<JobSighting> latestAcceptedJob() {
    JobSighting latest = null;
    for (RunRecord run : runs) {
      for (JobSighting job : run.jobs()) {
        if (job.accepted()) {
          latest = job;
        }
      }
    }
    if (latest == null) {
      return Optional.empty();
    }
    String id = latest.jobId();
    return jobs().stream().filter(job -> job.jobId().equals(id)).findFirst();
  }

  /** How the newest run that completed with a result ended. */
  public Optional<OperationResult> ended() {
    OperationResult ended = null;
    for (RunRecord run : runs) {
      if (run.result().isPresent()) {
        ended = run.result().get();
      }
    }
    return Optional.ofNullable(ended);
  }

  /** Whether a run closed {@code COMPLETED}: the operation went its whole course. */
  public boolean anyCompleted() {
    return runs.stream().anyMatch(run -> RunRecord.COMPLETED.equals(run.status()));
  }

  /** Dispatch attempts that started and have no recorded response, in every run. */
  public List<String> unanswered() {
    List<String> all = new ArrayList<>();
    runs.forEach(run -> all.addAll(run.unanswered()));
    return all;
  }

  /** Payloads that could not be read: what this evidence may be missing. */
  public List<String> unreadable() {
    List<String> all = new ArrayList<>();
    runs.forEach(run -> all.addAll(run.unreadable()));
    return all;
  }

  /**
   * Why Temporal says a POST of this operation may have been accepted, each fact on its own; empty
   * when its history holds none (then {@code not_submitted} has nothing against it here).
   */
  public List<String> mayHaveBeenAccepted() {
    List<String> facts = new ArrayList<>();
    for (JobSighting job : jobs()) {
      facts.add("Temporal's history holds job " + job.describe());
    }
    for (RunRecord run : runs) {
      if (RunRecord.COMPLETED.equals(run.status()) && run.result().isEmpty()) {
        facts.add("run " + run.runId() + " closed COMPLETED with a result that could not be read");
      }
    }
    return facts;
  }

  /** One line for operators: what each run holds. */
  public String summary() {
    if (runs.isEmpty()) {
      return "Temporal holds no run of " + workflowId();
    }
    List<String> parts = new ArrayList<>();
    for (RunRecord run : runs) {
      StringBuilder part = new StringBuilder("run " + run.runId() + " " + run.status());
      run.result()
          .ifPresent(
              r ->
                  part.append(" (")
                      .append(r.phase().wire())
                      .append(
                          r.artifacts().isEmpty()
                              ? ""
                              : ", " + r.artifacts().size() + " artifact(s)")
                      .append(')'));
      if (!run.jobs().isEmpty()) {
        part.append(", job ")
            .append(
                String.join(", ", run.jobs().stream().map(JobSighting::jobId).distinct().toList()));
      }
      if (run.dispatchesStarted() > 0) {
        part.append(", ").append(run.dispatchesStarted()).append(" dispatch attempt(s) started");
      }
      if (!run.unanswered().isEmpty()) {
        part.append(", ").append(run.unanswered().size()).append(" with no recorded response");
      }
      parts.add(part.toString());
    }
    return "Temporal holds "
        + runs.size()
        + " run(s) of "
        + workflowId()
        + ": "
        + String.join("; ", parts);
  }

  private String workflowId() {
    return com.genace.client.GenerationWorkflow.workflowId(operationId);
  }
}
