package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationRequest;
import com.genace.client.connection.TemporalSettings;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.StackFixture;
import com.genace.worker.temporal.TemporalConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ops resolve} and {@code ops cancel} with filters: reviews and renders made by the real
 * workers on the Temporal test server against the simulator (a {@code POST} answered 503 opens a
 * review), selected from the ledger and acted on through the same workflow updates as one ID.
 */
@ExtendWith(DatabaseExtension.class)
class BulkCommandsTest {

  @RegisterExtension static final StackFixture stack = new StackFixture();

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void a_thousand_reviews_are_counted_in_a_dry_run_then_abandoned_in_bulk() {
    int reviews = 1000;
    stack.simulator().setFaults(stack.simulator().faults().withSearchEnabled(false));
    openReviews("thousand", reviews);

    CliRunner.Result dryRun =
        stack.cli(
            "ops",
            "resolve",
            "--abandon",
            "--reason",
            "incident 41: orders withdrawn",
            "--review-reason",
            "post_outcome_unknown",
            "--account",
            "thousand");
    assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
    assertThat(dryRun.out())
        .startsWith(
            reviews
                + " operation(s) match (--review-reason post_outcome_unknown --account thousand)\n")
        .contains("... and " + (reviews - 10) + " more (oldest first)")
        .contains("dry run: nothing was changed. Add --apply to resolve abandon by ");
    assertThat(dryRun.out().lines().filter(l -> l.startsWith("thousand-"))).hasSize(10);
    assertThat(count("thousand", Phase.IN_REVIEW)).isEqualTo(reviews);

    long started = System.nanoTime();
    CliRunner.Result applied =
        stack.cli(
            "ops",
            "resolve",
            "--abandon",
            "--reason",
            "incident 41: orders withdrawn",
            "--by",
            "incident-41",
            "--review-reason",
            "post_outcome_unknown",
            "--account",
            "thousand",
            "--apply",
            "--rate",
            "200");
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    System.out.printf(
        "BulkCommandsTest: %d reviews resolved in bulk (abandon, --rate 200) in %.1f s%n",
        reviews, took.toMillis() / 1000.0);
    System.out.println(applied.out());

    assertThat(applied.exitCode()).as(applied.err() + applied.out()).isZero();
    assertThat(applied.out())
        .startsWith(
            "done: resolve abandon by incident-41: 1000/1000 done (1000 applied, 0 refused,")
        .doesNotContain("refused:")
        .doesNotContain("skipped:");
    assertThat(count("thousand", Phase.ABANDONED)).isEqualTo(reviews);
    assertThat(stack.ledger().get("thousand-0042").reviewResolvedBy()).contains("incident-41");
    assertThat(stack.ledger().get("thousand-0042").failureReason())
        .hasValueSatisfying(reason -> assertThat(reason).contains("orders withdrawn"));
  }

  @Test
  void a_bulk_not_submitted_rechecks_each_review_and_counts_the_refusals_by_reason() {
    stack.simulator().setFaults(stack.simulator().faults().withRate5xx(1.0));
    start("mixed-503-", "mixed", 3);
    awaitReviews("mixed", 3);
    // Two POSTs that created their job but lost the response: the evidence shows the job.
    stack
        .simulator()
        .setFaults(stack.simulator().faults().withRate5xx(0).withLosePostResponseNext(2));
    start("mixed-lost-", "mixed", 2);
    awaitReviews("mixed", 5);

    CliRunner.Result result =
        stack.cli(
            "ops",
            "resolve",
            "--not-submitted",
            "--reason",
            "outage over",
            "--account",
            "mixed",
            "--apply");

    assertThat(result.exitCode()).as(result.err() + result.out()).isEqualTo(1);
    assertThat(result.out())
        .contains("5/5 done (3 applied, 2 refused, 0 skipped)")
        .contains("refused:")
        .containsPattern(
            "(?m)^ +2  not_submitted refused: the evidence shows 1 job on Genace carries this"
                + " operation id  \\(e\\.g\\. mixed-lost-000[01], mixed-lost-000[01]\\)$");
    for (int i = 0; i < 3; i++) {
      stack.awaitPhase("mixed-503-000" + i, Phase.DELIVERED);
      assertThat(stack.simulator().stats().postsFor("mixed-503-000" + i)).isEqualTo(2);
    }
    assertThat(count("mixed", Phase.IN_REVIEW)).isEqualTo(2);
    assertThat(stack.simulator().stats().postsFor("mixed-lost-0000")).isEqualTo(1);
  }

  @Test
  void a_bulk_cancel_ends_one_accounts_renders_and_a_second_run_finds_nothing_left() {
    stack.simulator().setFaults(stack.simulator().faults().withJobDurationMs(600_000));
    start("cancel-me-", "cancel-me", 4);
    start("keep-", "keep", 1);
    awaitPhaseCount("cancel-me", Phase.OBSERVING, 4);
    stack.awaitPhase("keep-0000", Phase.OBSERVING);

    CliRunner.Result dryRun =
        stack.cli(
            "ops", "cancel", "--reason", "account closed", "--account", "cancel-me", "--json");
    CliRunner.Result cancel =
        stack.cli(
            "ops",
            "cancel",
            "--reason",
            "account closed",
            "--by",
            "alice",
            "--account",
            "cancel-me",
            "--apply",
            "--json");
    awaitPhaseCount("cancel-me", Phase.ABANDONED, 4);
    CliRunner.Result again =
        stack.cli(
            "ops", "cancel", "--reason", "account closed", "--account", "cancel-me", "--apply");

    assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
    JsonNode counted = json(dryRun.out());
    assertThat(counted.get("dry_run").asBoolean()).isTrue();
    assertThat(counted.get("selected").asLong()).isEqualTo(4);
    assertThat(counted.get("sample")).hasSize(4);
    assertThat(cancel.exitCode()).as(cancel.err() + cancel.out()).isZero();
    JsonNode summary = json(cancel.out());
    assertThat(summary.get("applied").asLong()).isEqualTo(4);
    assertThat(summary.get("refused")).isEmpty();
    assertThat(summary.get("interrupted").asBoolean()).isFalse();
    assertThat(stack.ledger().get("cancel-me-0003").failureReason())
        .contains("cancelled by alice: account closed");
    assertThat(stack.ledger().get("keep-0000").phase()).isEqualTo(Phase.OBSERVING);
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.out()).startsWith("done: cancel by ").contains("0/0 done (0 applied");
  }

  @Test
  void an_interrupted_run_stops_with_its_summary_and_a_second_run_does_the_rest() throws Exception {
    int reviews = 30;
    stack.simulator().setFaults(stack.simulator().faults().withSearchEnabled(false));
    openReviews("slow", reviews);
    AtomicReference<CliRunner.Result> first = new AtomicReference<>();
    Thread run =
        new Thread(
            () ->
                first.set(
                    stack.cli(
                        "ops",
                        "resolve",
                        "--abandon",
                        "--reason",
                        "drill",
                        "--account",
                        "slow",
                        "--apply",
                        "--rate",
                        "2")));
    run.start();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("slow", Phase.ABANDONED) >= 3);
    run.interrupt();
    run.join(Duration.ofSeconds(30).toMillis());
    long doneFirst = count("slow", Phase.ABANDONED);

    CliRunner.Result second =
        stack.cli(
            "ops",
            "resolve",
            "--abandon",
            "--reason",
            "drill",
            "--account",
            "slow",
            "--apply",
            "--rate",
            "100");

    assertThat(run.isAlive()).isFalse();
    assertThat(first.get().exitCode()).as(first.get().err()).isEqualTo(130);
    assertThat(first.get().out())
        .startsWith("interrupted: resolve abandon by ")
        .contains(doneFirst + "/" + reviews + " done (" + doneFirst + " applied, 0 refused")
        .contains("run the same command again to go on");
    assertThat(doneFirst).isLessThan(reviews);
    assertThat(second.exitCode()).as(second.err() + second.out()).isZero();
    long rest = reviews - doneFirst;
    assertThat(second.out())
        .contains(rest + "/" + rest + " done (" + rest + " applied, 0 refused, 0 skipped)");
    assertThat(count("slow", Phase.ABANDONED)).isEqualTo(reviews);
  }

  @Test
  void an_id_and_filters_exclude_each_other_and_a_bulk_command_needs_a_selection() {
    CliRunner.Result both =
        stack.cli("ops", "resolve", "x", "--abandon", "--reason", "r", "--account", "a");
    CliRunner.Result applyWithId = stack.cli("ops", "cancel", "x", "--reason", "r", "--apply");
    CliRunner.Result none = stack.cli("ops", "resolve", "--abandon", "--reason", "r");
    CliRunner.Result job =
        stack.cli(
            "ops", "resolve", "--found-remote-job", "gen_1", "--reason", "r", "--account", "a");
    CliRunner.Result rate =
        stack.cli("ops", "resolve", "--abandon", "--reason", "r", "--all", "--rate", "0");
    CliRunner.Result ended =
        stack.cli("ops", "cancel", "--reason", "r", "--all", "--phase", "delivered");
    CliRunner.Result reason =
        stack.cli("ops", "resolve", "--abandon", "--reason", "r", "--review-reason", "oops");

    for (CliRunner.Result usage : List.of(both, applyWithId, none, job, rate, ended, reason)) {
      assertThat(usage.exitCode()).as(usage.err()).isEqualTo(2);
    }
    assertThat(both.err()).startsWith("give an operation ID or filters");
    assertThat(applyWithId.err()).startsWith("give an operation ID or filters");
    assertThat(none.err()).startsWith("give an operation ID, or select operations with");
    assertThat(job.err()).startsWith("--found-remote-job names one job");
    assertThat(rate.err()).startsWith("--rate must be between 1 and 200");
    assertThat(ended.err()).startsWith("phase delivered has ended");
    assertThat(reason.err()).startsWith("unknown review reason 'oops'");
  }

  /** {@code n} operations of {@code account} whose POST is answered 503: each opens a review. */
  private static void openReviews(String account, int n) {
    stack.simulator().setFaults(stack.simulator().faults().withRate5xx(1.0));
    start(account + "-", account, n);
    awaitReviews(account, n);
    stack.simulator().setFaults(stack.simulator().faults().withRate5xx(0));
  }

  private static void start(String prefix, String account, int n) {
    try (TemporalConnection temporal =
        TemporalConnection.open(TemporalSettings.local(stack.env().get("TEMPORAL_ADDRESS")))) {
      IntStream.range(0, n)
          .mapToObj(i -> String.format("%s%04d", prefix, i))
          .forEach(
              id ->
                  temporal
                      .generationClient()
                      .start(new GenerationRequest(id, "image-v1", "{}", null, account)));
    }
  }

  /** Until {@code n} reviews of the account have their evidence: each then waits for a person. */
  private static void awaitReviews(String account, int n) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                query(
                        "SELECT count(*) FROM app_generation_operations o JOIN app_review_evidence e"
                            + " USING (operation_id) WHERE o.account = ? AND o.phase = 'in_review'",
                        account,
                        null)
                    >= n);
  }

  private static void awaitPhaseCount(String account, Phase phase, int n) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> count(account, phase) >= n);
  }

  private static long count(String account, Phase phase) {
    return query(
        "SELECT count(*) FROM app_generation_operations WHERE account = ? AND phase = ?",
        account,
        phase.wire());
  }

  private static long query(String sql, String account, String phase) {
    try (Connection connection = TestDatabase.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, account);
      if (phase != null) {
        statement.setString(2, phase);
      }
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }
}
