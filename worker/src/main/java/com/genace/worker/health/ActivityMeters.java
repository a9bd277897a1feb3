package com.genace.worker.health;

import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.stats.ActivityStats;
import com.genace.workflows.model.RemoteStatus;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * The activities' meters: POST outcomes, status polls, reviews opened and resolved, counted in the
 * registry that {@code /metrics} serves. Their {@code # HELP} text comes from {@link MetricHelp}.
 */
final class ActivityMeters implements ActivityStats {

  private final MeterRegistry registry;
  private final CreditLabels creditLabels;

  /** With no model listed: every model's credits are counted as {@code other}. */
  ActivityMeters(MeterRegistry registry) {
    this(registry, new CreditLabels(com.genace.activities.ledger.CreditEstimate.DEFAULT));
  }

  ActivityMeters(MeterRegistry registry, CreditLabels creditLabels) {
    this.registry = registry;
    this.creditLabels = creditLabels;
  }

  @Override
  public void creditsCommitted(String account, String model, long credits) {
    registry
        .counter(
            "genace_credits_committed",
            "account",
            creditLabels.account(account),
            "model",
            creditLabels.model(model))
        .increment(credits);
  }

  @Override
  public void posted(CreateOutcome outcome) {
    registry.counter("genace_post_outcomes", "outcome", outcomeName(outcome)).increment();
  }

  @Override
  public void polled(RemoteStatus status) {
    countPoll(status.wire());
  }

  @Override
  public void pollFailed(PollFailure failure) {
    countPoll(failure.name().toLowerCase(Locale.ROOT));
  }

  @Override
  public void pollLoopFailed(PollLoopFailure failure) {
    registry
        .counter("genace_poll_loop_failures", "stage", failure.name().toLowerCase(Locale.ROOT))
        .increment();
  }

  @Override
  public void reviewOpened() {
    registry.counter("genace_reviews_opened").increment();
  }

  @Override
  public void duplicateJobsFound() {
    registry.counter("genace_review_duplicates").increment();
  }

  @Override
  public void reviewResolved(Resolver by) {
    registry
        .counter("genace_review_resolutions", "by", by.name().toLowerCase(Locale.ROOT))
        .increment();
  }

  @Override
  public void approvalRefused(String reason) {
    registry.counter("genace_approvals_refused", "reason", reason).increment();
  }

  private void countPoll(String result) {
    registry.counter("genace_polls", "result", result).increment();
  }

  /** The {@code outcome} tag: {@code accepted}, {@code refused}, ..., {@code unknown}. */
  private static String outcomeName(CreateOutcome outcome) {
    if (outcome instanceof CreateOutcome.Accepted) {
      return "accepted";
    } else if (outcome instanceof CreateOutcome.Refused) {
      return "refused";
    } else if (outcome instanceof CreateOutcome.RateLimited) {
      return "rate_limited";
    } else if (outcome instanceof CreateOutcome.AccountRefused) {
      return "account_refused";
    } else if (outcome instanceof CreateOutcome.NotSent) {
      return "not_sent";
    }
    return "unknown";
  }
}
