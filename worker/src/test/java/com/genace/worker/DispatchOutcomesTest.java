package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.controls.WorkerControls;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.TestWorkers;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What each kind of dispatch outcome leads to. */
@ExtendWith(DatabaseExtension.class)
class DispatchOutcomesTest {

  private static final String FOX = "{\"prompt\":\"a fox\"}";

  @TempDir Path artifacts;

  @Test
  void a_refused_post_fails_only_its_own_operation_without_review() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      // The simulator answers 422 to a prompt that is not a string: this request is wrong.
      harness.client.start(new GenerationRequest("op-refused", "image-v1", "{\"prompt\":42}"));
      harness.client.start(request("op-fine"));

      OperationResult result = harness.client.awaitResult("op-refused", Duration.ofMinutes(1));

      assertThat(result.phase()).isEqualTo(Phase.FAILED);
      harness.replayAndRecord("op-refused", "refused");
      assertThat(result.detail()).contains("422");
      OperationRow row = harness.row("op-refused");
      assertThat(row.phase()).isEqualTo(Phase.FAILED);
      assertThat(row.dispatchOutcome()).contains("refused");
      assertThat(row.reviewReason()).isEmpty();
      assertThat(harness.simulator.jobsForOperation("op-refused")).isEmpty();
      assertThat(harness.client.awaitResult("op-fine", Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.DELIVERED);
      assertThat(new WorkerControls(TestDatabase.dataSource()).dispatchPause())
          .as("a refusal of one request never pauses dispatch")
          .isEmpty();
    }
  }

  @Test
  void a_post_that_never_connected_is_dispatched_again_after_a_backoff() throws Exception {
    GenaceSimulator down = GenerationHarness.simulator();
    int port = down.port();
    down.close(); // nothing listens on the port: connections are refused, nothing is sent
    try (GenerationHarness harness =
        new GenerationHarness(
            artifacts, down, GenerationHarness.API_KEY, null, Duration.ofSeconds(2))) {
      harness.client.start(request("op-unreachable"));
      harness.awaitDispatchOutcome("op-unreachable", "not_sent");
      assertThat(harness.row("op-unreachable").phase()).isEqualTo(Phase.PENDING);

      try (GenaceSimulator up =
          GenaceSimulator.builder()
              .port(port)
              .apiKey(GenerationHarness.API_KEY)
              .faults(Faults.DEFAULT.withJobDurationMs(300))
              .start()) {
        OperationResult result =
            harness.client.awaitResult("op-unreachable", Duration.ofMinutes(2));

        assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
        harness.replayAndRecord("op-unreachable", "not-sent-then-delivered");
        assertThat(up.stats().postsFor("op-unreachable")).isEqualTo(1);
        assertThat(harness.row("op-unreachable").dispatchAttempts()).isGreaterThanOrEqualTo(2);
        assertThat(harness.row("op-unreachable").reviewReason()).isEmpty();
      }
    }
  }

  @Test
  void a_rate_limited_post_waits_and_is_sent_again_without_review() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withRate429(1.0));
      harness.client.start(request("op-429"));
      harness.awaitDispatchOutcome("op-429", "rate_limited");
      harness.simulator.setFaults(harness.simulator.faults().withRate429(0));

      OperationResult result = harness.client.awaitResult("op-429", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      harness.replayAndRecord("op-429", "rate-limited-then-delivered");
      assertThat(harness.simulator.jobsForOperation("op-429")).hasSize(1);
      assertThat(harness.row("op-429").reviewReason()).isEmpty();
    }
  }

  @Test
  void a_429_for_one_account_s_traffic_leaves_another_account_s_dispatch_running()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      // Genace rate limits every POST of big's operations, none of small's.
      harness.simulator.setFaults(
          harness.simulator.faults().withRate429(1.0).withRate429Prefix("big-"));
      harness.client.start(new GenerationRequest("big-1", "image-v1", FOX, null, "big"));
      harness.client.start(new GenerationRequest("big-2", "image-v1", FOX, null, "big"));
      harness.awaitDispatchOutcome("big-1", "rate_limited");
      harness.awaitDispatchOutcome("big-2", "rate_limited");

      harness.client.start(new GenerationRequest("small-1", "image-v1", FOX, null, "small"));
      OperationResult small = harness.client.awaitResult("small-1", Duration.ofMinutes(1));

      assertThat(small.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.simulator.stats().postsFor("small-1")).isEqualTo(1);
      // Nothing fleet-wide: no pause, no circuit; big's operations wait on their own, uncreated.
      assertThat(new WorkerControls(TestDatabase.dataSource()).dispatchPause()).isEmpty();
      assertThat(harness.row("big-1").phase()).isEqualTo(Phase.PENDING);
      assertThat(harness.simulator.jobsForOperation("big-1")).isEmpty();
      assertThat(harness.simulator.stats().postsFor("big-2")).isGreaterThanOrEqualTo(1);

      harness.simulator.setFaults(harness.simulator.faults().withRate429(0));
      for (String big : List.of("big-1", "big-2")) {
        assertThat(harness.client.awaitResult(big, Duration.ofMinutes(2)).phase())
            .isEqualTo(Phase.DELIVERED);
        assertThat(harness.simulator.jobsForOperation(big)).hasSize(1);
        assertThat(harness.row(big).reviewReason()).isEmpty();
      }
    }
  }

  @Test
  void a_dispatch_that_times_out_before_its_post_is_dispatched_again_without_review()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      // The first dispatch stalls before its claim for longer than its 2 s start-to-close timeout,
      // as one whose task was lost on a loaded server does: its outcome is unknown to Temporal, but
      // the ledger shows it never marked the operation submitting, so no POST can have left.
      harness.stallNextDispatch.set(Duration.ofSeconds(6));
      harness.client.start(
          new GenerationRequest("op-stalled", "image-v1", "{\"prompt\":\"stalled\"}", 2));

      OperationResult result = harness.client.awaitResult("op-stalled", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      harness.replayAndRecord("op-stalled", "dispatch-timeout-nothing-sent-then-delivered");
      assertThat(harness.row("op-stalled").reviewReason()).isEmpty();
      assertThat(harness.client.describe("op-stalled").review()).isNull();
      // The stalled attempt wakes up after the second one was sent and finds nothing to send.
      await().atMost(Duration.ofSeconds(30)).until(() -> harness.stallsEnded.get() == 1);
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> harness.postsFor("op-stalled") == 1);
      assertThat(harness.ledger.history("op-stalled"))
          .filteredOn(t -> t.event().equals("submitting") && t.accepted())
          .hasSize(1);
      assertThat(harness.ledger.history("op-stalled"))
          .noneMatch(t -> t.event().equals("review_opened"));
    }
  }

  @Test
  void a_dispatch_that_outlives_its_timeout_goes_to_review_and_is_never_posted_again()
      throws Exception {
    try (GenerationHarness harness =
        new GenerationHarness(
            artifacts,
            GenerationHarness.simulator(),
            GenerationHarness.API_KEY,
            null,
            Duration.ofMinutes(5),
            true,
            TestWorkers.OPERATOR_REVIEWS,
            // The send window of a 2 s read timeout: a 5 min read timeout leaves none under the
            // harness's 3 s lease, and the worker would refuse it at start. The POST then hangs
            // past it anyway, as it would in a frozen process.
            new SendWindow(Duration.ofSeconds(2), TestWorkers.RECORDING_MARGIN))) {
      // The POST hangs far longer than the dispatch activity's 2 s start-to-close timeout.
      harness.simulator.setFaults(harness.simulator.faults().withLatencyMs(8_000));
      harness.client.start(
          new GenerationRequest("op-timeout", "image-v1", "{\"prompt\":\"slow\"}", 2));

      OperationRow inReview = harness.awaitPhase("op-timeout", Phase.IN_REVIEW);

      assertThat(inReview.reviewReason()).contains("dispatch_interrupted");
      await().atMost(Duration.ofSeconds(30)).until(() -> harness.postsFor("op-timeout") == 1);
      // The late answer arrives under a lease that was taken over: kept only as a diagnostic.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  harness.ledger.history("op-timeout").stream()
                      .anyMatch(t -> !t.accepted() && t.event().equals("accepted")));
      assertThat(harness.row("op-timeout").phase()).isEqualTo(Phase.IN_REVIEW);
      assertThat(harness.client.describe("op-timeout").review().detail())
          .contains("did not report back");
      assertThat(harness.postsFor("op-timeout")).isEqualTo(1);

      harness.client.resolve(
          "op-timeout", new ReviewResolution("abandon", null, "gave up after timeout", "ops"));
      assertThat(harness.client.awaitResult("op-timeout", Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.ABANDONED);
      harness.replayAndRecord("op-timeout", "dispatch-timeout-review");
    }
  }

  @Test
  void a_paused_fleet_writes_no_ledger_rows_for_pending_operations_until_resumed()
      throws Exception {
    int operations = 25;
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.dispatchClosed.set("dispatch_paused");
      for (int i = 0; i < operations; i++) {
        harness.client.start(request("op-paused-" + i));
      }
      // Every operation is registered and has been turned away by the closed gate at least twice.
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> transitionRows("op-paused-%") == operations);
      await().atMost(Duration.ofMinutes(1)).until(() -> harness.turnedAway.get() >= 2 * operations);

      assertThat(transitionRows("op-paused-%"))
          .as("only their 'created' rows")
          .isEqualTo(operations);
      assertThat(harness.simulator.stats().postsTotal()).isZero();
      assertThat(harness.row("op-paused-0").dispatchAttempts()).isZero();
      assertThat(harness.row("op-paused-0").phase()).isEqualTo(Phase.PENDING);
      assertThat(harness.client.describe("op-paused-0").dispatchAttempts()).isZero();

      harness.dispatchClosed.set(null); // resume

      for (int i = 0; i < operations; i++) {
        String id = "op-paused-" + i;
        assertThat(harness.client.awaitResult(id, Duration.ofMinutes(2)).phase())
            .isEqualTo(Phase.DELIVERED);
        assertThat(harness.postsFor(id)).isEqualTo(1);
        assertThat(harness.row(id).dispatchAttempts()).isEqualTo(1);
        assertThat(harness.row(id).dispatchOutcome()).contains("accepted");
      }
      assertThat(harness.client.describe("op-paused-0").dispatchAttempts()).isEqualTo(1);
      harness.replayAndRecord("op-paused-0", "paused-then-delivered");
    }
  }

  @Test
  void an_exhausted_allowance_holds_dispatch_without_counting_attempts() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.allowanceExhausted.set(true);
      harness.client.start(request("op-allowance"));
      await().atMost(Duration.ofSeconds(30)).until(() -> harness.allowanceRefusals.get() >= 2);
      assertThat(harness.postsFor("op-allowance")).isZero();
      assertThat(harness.row("op-allowance").dispatchAttempts()).isZero();

      harness.allowanceExhausted.set(false);
      OperationResult result = harness.client.awaitResult("op-allowance", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      harness.replayAndRecord("op-allowance", "allowance-exhausted-then-delivered");
      assertThat(harness.postsFor("op-allowance")).isEqualTo(1);
      assertThat(harness.row("op-allowance").dispatchAttempts()).isEqualTo(1);
      assertThat(harness.client.describe("op-allowance").dispatchAttempts()).isEqualTo(1);
    }
  }

  @Test
  void five_posts_that_never_connected_open_a_review_for_an_operator() throws Exception {
    GenaceSimulator down = GenerationHarness.simulator();
    down.close(); // nothing listens on the port: connections are refused, nothing is sent
    try (GenerationHarness harness =
        new GenerationHarness(
            artifacts, down, GenerationHarness.API_KEY, null, Duration.ofSeconds(2))) {
      harness.client.start(request("op-never-sent"));
      harness.temporal.sleep(Duration.ofMinutes(2)); // skips the backoffs between attempts

      OperationRow inReview = harness.awaitPhase("op-never-sent", Phase.IN_REVIEW);

      assertThat(inReview.reviewReason()).contains("dispatch_not_sent_repeatedly");
      assertThat(inReview.dispatchAttempts()).isEqualTo(5);
      await()
          .until(
              () ->
                  harness.client.describe("op-never-sent").review() != null
                      && harness.client.describe("op-never-sent").review().reason()
                          == ReviewReason.DISPATCH_NOT_SENT_REPEATEDLY);
      harness.client.resolve(
          "op-never-sent", new ReviewResolution("abandon", null, "Genace unreachable", "ops"));
      assertThat(harness.client.awaitResult("op-never-sent", Duration.ofMinutes(1)).phase())
          .isEqualTo(Phase.ABANDONED);
      harness.replayAndRecord("op-never-sent", "not-sent-five-times-review");
    }
  }

  private static long transitionRows(String operationIdPattern) throws SQLException {
    try (Connection connection = TestDatabase.dataSource().getConnection();
        PreparedStatement count =
            connection.prepareStatement(
                "SELECT count(*) FROM app_generation_transitions WHERE operation_id LIKE ?")) {
      count.setString(1, operationIdPattern);
      try (ResultSet rs = count.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
