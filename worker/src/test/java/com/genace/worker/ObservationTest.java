package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Observation end to end: every way it can end, and status polls that fail along the way. */
@ExtendWith(DatabaseExtension.class)
class ObservationTest {

  @TempDir Path artifacts;
  private GenerationHarness harness;

  @BeforeEach
  void start() {
    harness = new GenerationHarness(artifacts);
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  @Test
  void a_failed_render_ends_the_operation_failed_with_genaces_reason() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withFailRate(1.0));
    harness.client.start(request("op-render-failed"));

    OperationResult result = harness.client.awaitResult("op-render-failed", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.FAILED);
    harness.replayAndRecord("op-render-failed", "render-failed");
    assertThat(result.detail()).startsWith("render failed");
    OperationRow row = harness.row("op-render-failed");
    assertThat(row.phase()).isEqualTo(Phase.FAILED);
    assertThat(row.failureReason()).isPresent();
    assertThat(row.reviewReason()).isEmpty();
    assertThat(row.leaseOwner()).isEmpty();
    assertThat(harness.postsFor("op-render-failed")).isEqualTo(1);
    assertThat(harness.client.describe("op-render-failed").lastRemoteStatus()).isEqualTo("failed");
  }

  @Test
  void a_remote_job_unknown_to_genace_sends_the_operation_to_review() throws Exception {
    // Genace forgets the job it accepted while it is observed.
    harness.simulator.setFaults(
        harness.simulator.faults().withLosePostResponseNext(1).withJobDurationMs(60_000));
    harness.client.start(request("op-not-found"));
    harness.awaitPhase("op-not-found", Phase.IN_REVIEW);
    await().until(() -> harness.client.describe("op-not-found").awaitsOperator());
    String job = harness.simulator.jobsForOperation("op-not-found").get(0);
    harness.client.resolve(
        "op-not-found", new ReviewResolution("found_remote_job", job, "seen on Genace", "alice"));
    harness.awaitPhase("op-not-found", Phase.OBSERVING);
    assertThat(harness.postsFor("op-not-found")).isEqualTo(1);
    harness.simulator.reset();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                harness.row("op-not-found").reviewReason().orElse("").equals("remote_job_not_found")
                    && harness.client.describe("op-not-found").awaitsOperator());

    assertThat(harness.client.describe("op-not-found").review().reason())
        .isEqualTo(ReviewReason.REMOTE_JOB_NOT_FOUND);
    assertThat(harness.row("op-not-found").remoteJobId()).contains(job);
    harness.client.resolve(
        "op-not-found", new ReviewResolution("abandon", null, "cannot find the job", "alice"));
    assertThat(harness.client.awaitResult("op-not-found", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.ABANDONED);
    harness.replayAndRecord("op-not-found", "observation-review-not-found");
  }

  @Test
  void polls_that_fail_or_are_rate_limited_are_paced_and_observation_carries_on() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(4000));
    harness.client.start(request("op-flaky-polls"));
    harness.awaitPhase("op-flaky-polls", Phase.OBSERVING);
    long getsBefore = harness.simulator.stats().getsTotal();

    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1.0));
    await().atMost(Duration.ofSeconds(30)).until(() -> gets() >= getsBefore + 3);
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0).withRate429(1.0));
    long getsRateLimited = gets();
    await().atMost(Duration.ofSeconds(30)).until(() -> gets() >= getsRateLimited + 2);
    assertThat(harness.row("op-flaky-polls").phase()).isEqualTo(Phase.OBSERVING);
    assertThat(harness.row("op-flaky-polls").leaseOwner()).isEmpty();
    harness.simulator.setFaults(harness.simulator.faults().withRate429(0));

    OperationResult result = harness.client.awaitResult("op-flaky-polls", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    harness.replayAndRecord("op-flaky-polls", "observation-after-poll-failures");
    assertThat(harness.postsFor("op-flaky-polls")).isEqualTo(1);
    // Only newer snapshots were written: none for the failed status polls.
    assertThat(harness.ledger.history("op-flaky-polls"))
        .filteredOn(t -> t.event().equals("snapshot"))
        .hasSizeLessThanOrEqualTo(3);
  }

  private long gets() {
    return harness.simulator.stats().getsTotal();
  }
}
