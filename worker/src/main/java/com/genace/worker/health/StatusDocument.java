package com.genace.worker.health;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.ledger.LedgerStatistics;
import com.genace.client.TaskQueues;
import com.genace.worker.BuildInfo;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.temporal.Saturation;
import java.util.List;
import java.util.Optional;

/**
 * The worker's status document: the readiness fields every probe consumer reads ({@code process},
 * {@code accepting_dispatch}, {@code accepting_observation}, {@code reason}, {@code
 * active_operations}) first, then what helps an operator. Built from memory; never holds a secret.
 */
public final class StatusDocument {

  private static final ObjectMapper JSON = new ObjectMapper();

  private StatusDocument() {}

  /** The status document for {@code GET /status}. */
  public static ObjectNode of(WorkerConfig config, WorkerState state, WorkerMetrics metrics) {
    Optional<LedgerStatistics.Snapshot> statistics = metrics.latest();
    DispatchAllowance.Usage usage = metrics.allowanceUsage().orElse(null);
    Readiness readiness = state.readiness();
    ObjectNode status = JSON.createObjectNode();
    status.put("process", "alive");
    status.put("accepting_dispatch", readiness.acceptingDispatch());
    status.put("accepting_observation", readiness.acceptingObservation());
    status.put("reason", readiness.reason());
    status.put(
        "active_operations", state.activeDispatches().get() + state.activeOperations().get());
    status.put("worker_id", config.workerId());
    // During a rollout, which release each worker runs.
    BuildInfo build = BuildInfo.current();
    status.putObject("build").put("version", build.version()).put("commit", build.commit());
    status.put("started", state.started());
    status.put("draining", state.draining());
    status.put("active_dispatches", state.activeDispatches().get());
    status.put("max_dispatches", config.maxConcurrentDispatches());
    var inFlight = status.putArray("posts_in_flight");
    state.postsInFlight().forEach(lease -> inFlight.add(lease.operationId()));
    ObjectNode paused = status.putObject("dispatch_paused");
    state
        .localPause()
        .ifPresent(
            p -> paused.putObject("this_worker").put("by", p.by()).put("reason", p.reason()));
    state
        .fleetPause()
        .ifPresent(
            p ->
                paused
                    .putObject("fleet")
                    .put("by", p.pausedBy())
                    .put("reason", p.reason())
                    .put("since", p.since().toString()));
    CircuitReport.addTo(status, state);
    ObjectNode version = status.putObject("config_version");
    version.put("worker", config.configVersion().orElse(null));
    version.put("fleet", state.fleetConfigVersion().map(v -> v.version()).orElse(null));
    version.put("current", state.configVersionCurrent());
    version.put("fingerprint", config.fleetFingerprint());
    WorkerState.LedgerCheck check = state.lastLedgerCheck();
    status
        .putObject("last_ledger_check")
        .put("ok", check.ok())
        .put("at", check.at().toString())
        .put("error", check.error());
    statistics.ifPresent(
        s -> {
          status.put("open_reviews", s.openReviews());
          status.put("oldest_review_age_seconds", Math.round(s.oldestReviewAgeSeconds()));
          status.put("polls_overdue", s.pollsOverdue());
          status.put("oldest_poll_overdue_seconds", Math.round(s.oldestPollOverdueSeconds()));
          status.put("oldest_observation_age_seconds", Math.round(s.oldestObservationAgeSeconds()));
          status.put("oldest_delivery_age_seconds", Math.round(s.oldestDeliveryAgeSeconds()));
          ObjectNode phases = status.putObject("operations_by_phase");
          s.phases().forEach((phase, n) -> phases.put(phase.wire(), n));
        });
    status.put("artifact_store", state.artifactStoreProblem().orElse("ok"));
    ObjectNode accounts =
        status.putObject("accounts").put("fairness_weights", state.fairnessWeights());
    var held = accounts.putArray("held");
    state
        .heldAccounts()
        .forEach(
            hold ->
                held.addObject()
                    .put("account", hold.account())
                    .put("reason", hold.reason())
                    .put("held_by", hold.heldBy())
                    .put("held_until", hold.heldUntil().toString()));
    state
        .spendingGuarded()
        .ifPresentOrElse(
            guarded ->
                status.put(
                    "spending",
                    guarded
                        ? "guarded: not_submitted needs a signed approval"
                        : "unguarded: no approver registered (ops approvers add)"),
            () -> status.putNull("spending"));
    ObjectNode sweeper =
        status
            .putObject("orphan_sweeper")
            .put("orphans_found", state.orphansFound().get())
            .put("interval_seconds", config.sweepInterval().toSeconds())
            .put("schedule", state.sweepSchedule());
    state
        .lastSweepPass()
        .ifPresentOrElse(
            pass ->
                sweeper
                    .putObject("last_pass")
                    .put("ended_at", pass.endedAt().toString())
                    .put("rows_seen", pass.report().checked())
                    .put("pages", pass.report().pages())
                    .put("seconds", pass.report().elapsedMillis() / 1000.0)
                    .put("orphans", pass.report().orphans().size())
                    .put("behind_running", pass.report().behindRunning().size())
                    .put("walk_completed", pass.report().walkCompleted()),
            () -> sweeper.putNull("last_pass"));
    ObjectNode retention =
        status
            .putObject("ledger_retention")
            .put("retention_days", config.ledgerRetentionDays())
            .put("schedule", state.retentionSchedule())
            .put("operations_deleted", state.retentionDeleted().get());
    state
        .lastRetentionPass()
        .ifPresentOrElse(
            pass ->
                retention
                    .putObject("last_pass")
                    .put("ended_at", pass.endedAt().toString())
                    .put("window_days", pass.report().windowSeconds() / 86_400.0)
                    .put("operations_deleted", pass.report().operationsDeleted())
                    .put("transitions_deleted", pass.report().transitionsDeleted())
                    .put("evidence_deleted", pass.report().evidenceDeleted())
                    .put("reservations_deleted", pass.report().reservationsDeleted())
                    .put("kept_for_allowance", pass.report().keptForAllowance())
                    .put("batches", pass.report().batches())
                    .put("seconds", pass.report().elapsedMillis() / 1000.0)
                    .put("complete", pass.report().complete()),
            () -> retention.putNull("last_pass"));
    status
        .putObject("temporal")
        .put("address", config.temporalAddress())
        .put("namespace", config.temporalNamespace())
        .put("polls", state.temporalProblem().orElse("ok"))
        .set(
            "task_queues",
            JSON.valueToTree(
                List.of(TaskQueues.OPERATIONS, TaskQueues.OBSERVATION, TaskQueues.DISPATCH)));
    status.set("waiting_for_workers", waiting(metrics));
    status.put("genace_base_url", config.genaceBaseUrl().toString());
    if (usage != null) {
      ObjectNode allowanceNode = status.putObject("allowance");
      allowanceNode.put("credits_used_in_window", usage.creditsInWindow());
      allowanceNode.put("window_seconds", usage.policy().window().toSeconds());
      allowanceNode.put("dispatches_in_flight", usage.inFlight());
      limit(allowanceNode, "credits_per_window", usage.policy().globalCredits());
      limit(allowanceNode, "account_credits_per_window", usage.policy().accountCredits());
      limit(allowanceNode, "max_in_flight", usage.policy().globalMaxInFlight());
      limit(allowanceNode, "account_max_in_flight", usage.policy().accountMaxInFlight());
    }
    return status;
  }

  /**
   * Work no worker has picked up yet: each task queue's backlog, and operations started but not
   * registered. A part the Temporal server cannot report says why instead.
   */
  private static ObjectNode waiting(WorkerMetrics metrics) {
    ObjectNode waiting = JSON.createObjectNode();
    Optional<Saturation.Reading> reading = metrics.saturation();
    if (reading.isEmpty()) {
      return waiting.put("unavailable", "not read yet");
    }
    reading
        .get()
        .backlog()
        .ifPresentOrElse(
            list -> {
              ObjectNode queues = waiting.putObject("task_queues");
              for (Saturation.Backlog b : list) {
                ObjectNode queue =
                    queues.has(b.taskQueue())
                        ? (ObjectNode) queues.get(b.taskQueue())
                        : queues.putObject(b.taskQueue());
                queue
                    .putObject(b.type() + "_tasks")
                    .put("backlog", b.tasks())
                    .put("oldest_age_seconds", Math.round(b.oldestAgeSeconds()));
              }
            },
            () ->
                waiting.put(
                    "task_queues_unavailable", reading.get().backlogUnavailable().orElse("")));
    metrics
        .startedNotRegistered()
        .ifPresentOrElse(
            n -> waiting.put("started_not_registered", n),
            () ->
                waiting.put(
                    "started_not_registered_unavailable",
                    reading.get().runningUnavailable().orElse("ledger figures not read yet")));
    return waiting;
  }

  /** Unlimited limits show as null rather than as a huge number. */
  private static void limit(ObjectNode node, String field, long value) {
    if (value >= Integer.MAX_VALUE) {
      node.putNull(field);
    } else {
      node.put(field, value);
    }
  }
}
