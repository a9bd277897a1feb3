package com.genace.worker.health;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.Map;

/**
 * The {@code # HELP} text of every {@code genace_*} metric, in one place: meters registered without
 * a description ({@link ActivityMeters}, {@link ActivityCounting}, the workflow's through
 * Temporal's metrics scope) get theirs from here.
 */
final class MetricHelp implements MeterFilter {

  static final Map<String, String> HELP =
      Map.ofEntries(
          Map.entry(
              "genace_accepting_dispatch", "1 while this worker may take dispatch (POST) work"),
          Map.entry(
              "genace_accepting_observation",
              "1 while this worker may take observation and delivery work"),
          Map.entry("genace_active_dispatches", "dispatch activities running on this worker"),
          Map.entry(
              "genace_accounts_held",
              "accounts whose dispatch a 429 holds now, fleet-wide (until its Retry-After)"),
          Map.entry(
              "genace_active_operation_activities",
              "other activities (observe, deliver, review) running on this worker"),
          Map.entry(
              "genace_activity_exceptions",
              "exceptions thrown by activities on this worker, by activity and root cause"),
          Map.entry(
              "genace_post_outcomes",
              "POSTs sent by this worker, by outcome (accepted, unknown, ...)"),
          Map.entry(
              "genace_dispatch_circuit_open",
              "1 while Genace refuses the account and dispatch is paused fleet-wide"),
          Map.entry("genace_polls", "status polls by this worker, by result"),
          Map.entry(
              "genace_credits_committed",
              "estimated credits (GENACE_MODEL_COSTS) this worker committed with the acceptances"
                  + " it recorded, by account (the first 50, then other) and model (those"
                  + " GENACE_MODEL_COSTS names, then other)"),
          Map.entry(
              "genace_poll_loop_failures",
              "failed passes of this worker's poll loop, by stage (claim: the ledger's schedule"
                  + " unreadable; loop: anything else)"),
          Map.entry(
              "genace_lease_denials",
              "exclusive writes by this worker that the lease fence denied"),
          Map.entry(
              "genace_ledger_transitions",
              "state changes this worker recorded in the ledger, by event"),
          Map.entry(
              "genace_db_statement",
              "this worker's SQL statements by name and outcome, and their time"),
          Map.entry(
              "genace_operations",
              "unfinished operations in each phase, fleet-wide, from the ledger"),
          Map.entry("genace_open_reviews", "operations waiting in uncertainty review, fleet-wide"),
          Map.entry("genace_oldest_review_age_seconds", "age of the oldest open review"),
          Map.entry(
              "genace_oldest_observation_age_seconds",
              "how long the operation observing longest has waited for its render, fleet-wide"),
          Map.entry(
              "genace_oldest_delivery_age_seconds",
              "how long the operation delivering longest has been delivering, fleet-wide"),
          Map.entry(
              "genace_review_reminders", "reminders that a review still waits for an operator"),
          Map.entry("genace_reviews_opened", "uncertainty reviews opened by this worker"),
          Map.entry(
              "genace_review_duplicates",
              "reviews whose evidence shows several Genace jobs for one operation"),
          Map.entry(
              "genace_review_resolutions",
              "review resolutions recorded by this worker, by who resolved (reconciler or operator)"),
          Map.entry("genace_review_resolutions_refused", "review resolutions the workflow refused"),
          Map.entry(
              "genace_approvals_refused",
              "not_submitted decisions refused for their approval, by reason"),
          Map.entry(
              "genace_operations_cancelled",
              "operations cancelled (the cancel update or Temporal's own), by the workflow"),
          Map.entry(
              "genace_sweep_rows_seen",
              "unfinished operations the last sweep pass on this worker read and checked"),
          Map.entry(
              "genace_sweep_pass_seconds", "how long the last sweep pass on this worker took"),
          Map.entry(
              "genace_config_version_current",
              "1 while this worker's configuration version is the fleet's current one"),
          Map.entry(
              "genace_config_info",
              "this worker's configuration version and fleet settings fingerprint"),
          Map.entry("genace_task_queue_backlog", "tasks waiting for a worker, from Temporal"),
          Map.entry(
              "genace_task_queue_backlog_age_seconds",
              "age of the oldest task waiting, from Temporal"),
          Map.entry(
              "genace_operations_started_not_registered",
              "generation workflows running that no worker has registered in the ledger yet"));

  @Override
  public Meter.Id map(Meter.Id id) {
    String help = HELP.get(id.getName());
    if (help == null || (id.getDescription() != null && !id.getDescription().isBlank())) {
      return id;
    }
    return new Meter.Id(
        id.getName(), Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), help, id.getType());
  }
}
