package com.genace.activities.recovery;

import com.genace.client.DeliveredArtifact;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationResult;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one run of an operation's workflow holds, as read from its history.
 *
 * @param runId the run
 * @param status {@code RUNNING}, or how it closed ({@code COMPLETED}, {@code TERMINATED}, …)
 * @param startedAt when it started
 * @param request the request it was started with, or null when its input could not be read
 * @param jobs the remote job ids it holds, in the order seen
 * @param unanswered each dispatch attempt that started and has no recorded response (the activity
 *     failed without proof that nothing was sent, timed out, or was still running when the run
 *     closed), described for operators
 * @param dispatchesStarted dispatch attempts that started in this run
 * @param delivered what a completed delivery activity copied (empty if none completed)
 * @param result the run's result, when it completed with one
 * @param unreadable payloads that could not be decoded (a codec key missing here), described
 * @param registered whether the run shows that the operation was in the ledger: a registration
 *     completed (alone or with the first dispatch), or an observation or a delivery was scheduled
 */
public record RunRecord(
    String runId,
    String status,
    Instant startedAt,
    GenerationRequest request,
    List<JobSighting> jobs,
    List<String> unanswered,
    int dispatchesStarted,
    List<DeliveredArtifact> delivered,
    Optional<OperationResult> result,
    List<String> unreadable,
    boolean registered) {

  public static final String RUNNING = "RUNNING";
  public static final String COMPLETED = "COMPLETED";

  public RunRecord {
    jobs = List.copyOf(jobs);
    unanswered = List.copyOf(unanswered);
    delivered = List.copyOf(delivered);
    unreadable = List.copyOf(unreadable);
  }

  public boolean running() {
    return RUNNING.equals(status);
  }
}
