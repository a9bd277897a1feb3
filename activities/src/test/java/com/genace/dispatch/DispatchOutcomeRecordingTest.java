package com.genace.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.allowance.SpendingAllowance;
import com.genace.client.CreateOutcome;
import com.genace.client.CreateRequest;
import com.genace.client.GenaceClient;
import com.genace.client.GenaceClientConfig;
import com.genace.client.HttpGenaceClient;
import com.genace.client.JobOutput;
import com.genace.client.JobSnapshot;
import com.genace.client.RemoteJob;
import com.genace.controls.DispatchCircuit;
import com.genace.ledger.NewOperation;
import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.model.Phase;
import com.genace.simulator.GenaceSimulator;
import com.genace.stats.ActivityStats;
import com.genace.testing.DatabaseExtension;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What happens between a dispatch claim and the recording of its outcome: no POST leaves late in
 * its lease, an outcome the ledger did not take is never reported as if it had, and the allowance
 * is settled after the outcome, whose recording its failure does not change.
 */
@ExtendWith(DatabaseExtension.class)
class DispatchOutcomeRecordingTest {

  private GenaceSimulator simulator;
  private GenaceClient genace;

  @BeforeEach
  void start() {
    simulator = GenaceSimulator.start(0);
    genace = new HttpGenaceClient(GenaceClientConfig.of(simulator.baseUrl(), "key"));
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  private static OperationsLedger ledgerWith(DataSource db, Duration lease) {
    OperationsLedger ledger = new OperationsLedger(db, lease);
    ledger.create(new NewOperation("op-1", "image-v1", "{\"prompt\":\"fox\"}"));
    return ledger;
  }

  /** Open; its second reading, the one after the claim, first pauses this long. */
  private static DispatchGate pausingAfterTheClaim(Duration pause) {
    AtomicInteger readings = new AtomicInteger();
    return () -> {
      if (readings.incrementAndGet() == 2) {
        sleep(pause);
      }
      return Optional.empty();
    };
  }

  @Test
  void a_pause_between_claim_and_post_past_the_lease_margin_sends_nothing(DataSource db) {
    Duration lease = Duration.ofSeconds(6);
    OperationsLedger ledger = ledgerWith(db, lease);
    DispatchActivitiesImpl dispatcher =
        new DispatchActivitiesImpl(
            ledger, genace, "worker-a", pausingAfterTheClaim(Duration.ofMillis(4500)));

    DispatchResult result = dispatcher.dispatch("op-1");

    // 4.5 s after the claim, past the 4 s (two thirds of the lease) within which a POST leaves.
    assertThat(DispatchActivitiesImpl.sendWithin(lease)).isEqualTo(Duration.ofSeconds(4));
    assertThat(result.outcome()).isEqualTo(DispatchOutcome.NOT_SENT);
    assertThat(result.detail()).contains("a POST leaves only within 4000 ms of its claim");
    assertThat(simulator.stats().postsTotal()).isZero();
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.PENDING);
    assertThat(row.dispatchOutcome()).contains("not_sent");
    assertThat(row.leaseOwner()).isEmpty();

    DispatchResult next =
        new DispatchActivitiesImpl(ledger, genace, "worker-a", DispatchGate.OPEN).dispatch("op-1");
    assertThat(next.outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(simulator.stats().postsTotal()).isEqualTo(1);
  }

  @Test
  void a_refusal_that_came_after_the_lease_ran_out_is_reported_unknown(DataSource db) {
    OperationsLedger ledger = ledgerWith(db, Duration.ofSeconds(1));
    GenaceClient slowRefusal =
        new AnswerAfter(
            Duration.ofMillis(1500), new CreateOutcome.Refused(422, "input.prompt is required"));

    DispatchResult result =
        new DispatchActivitiesImpl(ledger, slowRefusal, "worker-a", DispatchGate.OPEN)
            .dispatch("op-1");

    // Reported as refused, the workflow would end failed while the ledger keeps it submitting.
    assertThat(result.outcome()).isEqualTo(DispatchOutcome.UNKNOWN);
    assertThat(result.detail())
        .contains("Genace refused the request")
        .contains("the dispatch lease was lost before it was recorded");
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.SUBMITTING);
  }

  @Test
  void a_rate_limit_that_came_after_the_lease_ran_out_says_the_ledger_did_not_take_it(
      DataSource db) {
    OperationsLedger ledger = ledgerWith(db, Duration.ofSeconds(1));
    GenaceClient slowLimit =
        new AnswerAfter(
            Duration.ofMillis(1500), new CreateOutcome.RateLimited(Duration.ofSeconds(2)));

    DispatchResult result =
        new DispatchActivitiesImpl(ledger, slowLimit, "worker-a", DispatchGate.OPEN)
            .dispatch("op-1");

    // Nothing was created, so the outcome stands; the row still says submitting, and the next
    // claim reads it: a review, never a POST on the strength of the lost write.
    assertThat(result.outcome()).isEqualTo(DispatchOutcome.RATE_LIMITED);
    assertThat(result.detail()).contains("the ledger did not record it (denied)");
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.SUBMITTING);
    DispatchResult next =
        new DispatchActivitiesImpl(ledger, genace, "worker-b", DispatchGate.OPEN).dispatch("op-1");
    assertThat(next.outcome()).isEqualTo(DispatchOutcome.IN_REVIEW);
    assertThat(simulator.stats().postsTotal()).isZero();
  }

  @Test
  void an_allowance_that_cannot_settle_leaves_an_accepted_job_accepted(DataSource db) {
    OperationsLedger ledger = ledgerWith(db, Duration.ofSeconds(30));
    SpendingAllowance unsettled =
        new SpendingAllowance() {
          @Override
          public Reservation reserve(String operationId, String account, String model) {
            return new Reservation(true, "granted");
          }

          @Override
          public void settle(String operationId, boolean spent) {
            throw new IllegalStateException("allowance statement failed: connection reset");
          }
        };

    DispatchResult result =
        new DispatchActivitiesImpl(
                ledger,
                genace,
                "worker-a",
                DispatchGate.OPEN,
                DispatchListener.NONE,
                unsettled,
                DispatchCircuit.NONE,
                ActivityStats.NONE)
            .dispatch("op-1");

    assertThat(result.outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.OBSERVING);
    assertThat(ledger.get("op-1").remoteJobId()).contains(result.remoteJobId());
    assertThat(simulator.stats().postsTotal()).isEqualTo(1);
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * A Genace whose POST answers {@code outcome} after {@code delay}; dispatch calls nothing else.
   */
  private record AnswerAfter(Duration delay, CreateOutcome outcome) implements GenaceClient {

    @Override
    public CreateOutcome create(CreateRequest request) {
      sleep(delay);
      return outcome;
    }

    @Override
    public JobSnapshot get(String remoteJobId) {
      throw new AssertionError("dispatch reads no job");
    }

    @Override
    public List<String> listModels() {
      throw new AssertionError("dispatch lists no models");
    }

    @Override
    public InputStream openOutput(JobOutput output) {
      throw new AssertionError("dispatch downloads nothing");
    }

    @Override
    public Optional<RemoteJob> lookUp(String remoteJobId) {
      throw new AssertionError("dispatch looks up no job");
    }

    @Override
    public Optional<List<RemoteJob>> search(String operationId) {
      throw new AssertionError("dispatch searches nothing");
    }
  }
}
