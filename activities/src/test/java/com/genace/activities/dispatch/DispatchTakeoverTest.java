package com.genace.activities.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.RemoteJob;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A dispatcher paused after a mocked POST: the worker that takes its lease over does not POST
 * again.
 */
@ExtendWith(DatabaseExtension.class)
class DispatchTakeoverTest {

  /**
   * A POST that "left" and whose answer is held back until the test releases it. Dispatch calls
   * nothing but {@code create}, so the other methods refuse to be called.
   */
  private static final class PausedPost implements GenaceClient {
    final CountDownLatch sent = new CountDownLatch(1);
    final CountDownLatch resume = new CountDownLatch(1);

    @Override
    public CreateOutcome create(CreateRequest request) {
      sent.countDown();
      try {
        resume.await(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new CreateOutcome.Accepted("gen_mocked", "queued");
    }

    @Override
    public JobSnapshot get(String remoteJobId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<String> listModels() {
      throw new UnsupportedOperationException();
    }

    @Override
    public InputStream openOutput(JobOutput output) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<RemoteJob> lookUp(String remoteJobId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<List<RemoteJob>> search(String operationId) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void a_takeover_of_a_paused_dispatch_opens_a_review_and_never_posts_again(DataSource db)
      throws Exception {
    OperationsLedger ledger = new OperationsLedger(db, Duration.ofMillis(500));
    ledger.create(new NewOperation("op-1", "image-v1", "{\"prompt\":\"fox\"}"));
    PausedPost paused = new PausedPost();
    // A POST may leave 300 ms after its claim; this one then hangs past its 100 ms read timeout,
    // as in a frozen process, and past the lease.
    SendWindow window = new SendWindow(Duration.ofMillis(100), Duration.ofMillis(100));
    DispatchActivitiesImpl first =
        new DispatchActivitiesImpl(ledger, paused, "worker-a", DispatchGate.OPEN, window);

    try (GenaceSimulator simulator = GenaceSimulator.start(0)) {
      GenaceClient real = new HttpGenaceClient(GenaceClientConfig.of(simulator.baseUrl(), "key"));
      DispatchActivitiesImpl second =
          new DispatchActivitiesImpl(ledger, real, "worker-b", DispatchGate.OPEN, window);

      CompletableFuture<DispatchResult> pausedResult =
          CompletableFuture.supplyAsync(() -> first.dispatch("op-1"));
      assertThat(paused.sent.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.SUBMITTING);

      // worker-a's lease runs out while its POST hangs; worker-b takes over.
      await().until(() -> ledger.get("op-1").leaseUntil().get().isBefore(java.time.Instant.now()));
      DispatchResult takeover = second.dispatch("op-1");

      assertThat(takeover.outcome()).isEqualTo(DispatchOutcome.IN_REVIEW);
      assertThat(simulator.stats().postsTotal()).isZero();
      assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.IN_REVIEW);

      // worker-a wakes up with Genace's answer: it may not overwrite, but the evidence is kept.
      paused.resume.countDown();
      DispatchResult late = pausedResult.get(30, TimeUnit.SECONDS);

      assertThat(late.outcome()).isEqualTo(DispatchOutcome.UNKNOWN);
      assertThat(late.remoteJobId()).isEqualTo("gen_mocked");
      assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.IN_REVIEW);
      assertThat(ledger.get("op-1").remoteJobId()).isEmpty();
      assertThat(ledger.history("op-1"))
          .filteredOn(t -> !t.accepted())
          .extracting(TransitionRow::detailsJson)
          .anySatisfy(details -> assertThat(details).contains("gen_mocked"));
      assertThat(second.dispatch("op-1").outcome()).isEqualTo(DispatchOutcome.IN_REVIEW);
      assertThat(simulator.stats().postsTotal()).isZero();
    }
  }

  @Test
  void a_closed_dispatch_gate_sends_nothing_and_leaves_the_operation_dispatchable(DataSource db)
      throws Exception {
    OperationsLedger ledger = new OperationsLedger(db);
    ledger.create(new NewOperation("op-1", "image-v1", "{\"prompt\":\"fox\"}"));
    try (GenaceSimulator simulator = GenaceSimulator.start(0)) {
      GenaceClient real = new HttpGenaceClient(GenaceClientConfig.of(simulator.baseUrl(), "key"));
      DispatchActivitiesImpl paused =
          new DispatchActivitiesImpl(
              ledger, real, "worker-a", () -> java.util.Optional.of("dispatch_paused"));

      DispatchResult result = paused.dispatch("op-1");

      assertThat(result.outcome()).isEqualTo(DispatchOutcome.PAUSED);
      assertThat(simulator.stats().postsTotal()).isZero();
      assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.PENDING);
      assertThat(ledger.get("op-1").leaseOwner()).isEmpty();
    }
  }
}
