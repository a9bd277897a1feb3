package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.genace.activities.genace.GenaceClient;
import com.genace.activities.ledger.ReviewEvidenceRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewEvidence;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code not_submitted} is applied only when the evidence gathered again could look: during a
 * Genace outage the search answers nothing, so the resolution is refused with the reason and the
 * review waits as it was; once Genace answers again, asking again gets an honest answer.
 */
@ExtendWith(DatabaseExtension.class)
class NotSubmittedDuringOutageTest {

  private static final String OP = "op-outage";

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

  private static ReviewResolution notSubmitted() {
    return new ReviewResolution("not_submitted", null, "nothing on the dashboard", "bob");
  }

  @Test
  void not_submitted_is_refused_while_genace_cannot_be_searched_and_the_review_waits_unchanged()
      throws Exception {
    // The POST's response is lost and the search lists the job only after the review's first
    // search (one second) ended: the review opens with no job found and waits for an operator.
    harness.simulator.setFaults(
        harness.simulator.faults().withLosePostResponseNext(1).withSearchLagMs(4000));
    harness.client.start(request(OP));
    harness.awaitPhase(OP, Phase.IN_REVIEW);
    await().until(() -> harness.client.describe(OP).awaitsOperator());
    ReviewEvidence opened = harness.client.describe(OP).review().evidence();
    assertThat(opened.candidates()).isEmpty();
    ReviewEvidenceRow kept = harness.ledger.reviewEvidence(OP).orElseThrow();

    // Genace's outage: every request is answered 503.
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1.0));
    Throwable outcome = catchThrowable(() -> harness.client.resolve(OP, notSubmitted()));
    if (outcome == null) {
      // Accepted: the operation is dispatched again; wait for that POST to show the figures.
      await().atMost(Duration.ofSeconds(30)).until(() -> harness.postsFor(OP) > 1);
    }
    System.out.printf(
        "not_submitted during an outage: posts=%d jobs=%d phase=%s%n",
        harness.postsFor(OP),
        harness.simulator.jobsForOperation(OP).size(),
        harness.row(OP).phase().wire());

    assertThat(outcome)
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("not_submitted refused: could not check: the search failed")
        .hasMessageContaining("503")
        .hasMessageContaining("ask again later, or abandon");
    assertThat(harness.postsFor(OP)).isEqualTo(1);
    assertThat(harness.row(OP).phase()).isEqualTo(Phase.IN_REVIEW);
    OperationView waiting = harness.client.describe(OP);
    assertThat(waiting.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(waiting.awaitsOperator()).isTrue();
    assertThat(waiting.review().evidence()).isEqualTo(opened);
    assertThat(harness.ledger.reviewEvidence(OP).orElseThrow()).isEqualTo(kept);

    // The outage ends and the search lists the job now: asking again is answered honestly.
    harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0));
    GenaceClient genace = harness.genaceClient(GenerationHarness.API_KEY);
    await().atMost(Duration.ofSeconds(30)).until(() -> genace.search(OP).orElseThrow().size() == 1);
    String job = harness.simulator.jobsForOperation(OP).get(0);
    assertThatThrownBy(() -> harness.client.resolve(OP, notSubmitted()))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("not_submitted refused: the evidence shows")
        .hasMessageContaining(job);

    harness.client.resolve(OP, new ReviewResolution("found_remote_job", job, "listed", "bob"));
    OperationResult result = harness.client.awaitResult(OP, Duration.ofMinutes(1));
    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(harness.postsFor(OP)).isEqualTo(1);
    harness.replayAndRecord(OP, "review-not-submitted-refused-while-unchecked");
  }
}
