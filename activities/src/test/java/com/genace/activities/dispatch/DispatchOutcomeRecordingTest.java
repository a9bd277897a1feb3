package com.genace.activities.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.RemoteJob;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.dispatch.DispatchResult;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What happens between a dispatch claim and the recording of its outcome: no POST leaves when its
 * answer could come back too late to be recorded under its lease, an outcome the ledger did not
 * take is never reported as if it had, and the allowance is settled after the outcome, whose
 * recording its failure does not change.
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

  /** A 45 s lease, a 30 s read timeout and a 3 s recording margin: a POST leaves within 12 s. */
  private static final Duration LEASE = Duration.ofSeconds(45);

  private static final SendWindow WINDOW =
      new SendWindow(Duration.ofSeconds(30), Duration.ofSeconds(3));

  /** A monotonic clock that moves only when told. */
  private final AtomicLong nanos = new AtomicLong();

  /** Open; its second reading, the one after the claim, first moves the clock this far. */
  private DispatchGate advancingAfterTheClaim(Duration elapsed) {
    AtomicInteger readings = new AtomicInteger();
    return () -> {
      if (readings.incrementAndGet() == 2) {
        nanos.addAndGet(elapsed.toNanos());
      }
      return Optional.empty();
    };
  }

  private DispatchActivitiesImpl dispatcherWhoseClaimIsThisOld(
      OperationsLedger ledger, Duration elapsed) {
    return new DispatchActivitiesImpl(
        ledger,
        genace,
        "worker-a",
        advancingAfterTheClaim(elapsed),
        DispatchListener.NONE,
        SpendingAllowance.UNLIMITED,
        DispatchCircuit.NONE,
        ActivityStats.NONE,
        WINDOW,
        nanos::get);
  }

  @Test
  void a_post_leaves_while_its_answer_and_recording_still_fit_in_the_lease(DataSource db) {
    OperationsLedger ledger = ledgerWith(db, LEASE);

    // 12 s after the claim: 12 + 30 + 3 = 45, the answer can still be recorded under the lease.
    DispatchResult result =
        dispatcherWhoseClaimIsThisOld(ledger, Duration.ofSeconds(12)).dispatch("op-1");

    assertThat(result.outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(simulator.stats().postsTotal()).isEqualTo(1);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.OBSERVING);
  }

  @Test
  void a_post_whose_answer_could_land_after_the_lease_is_not_sent(DataSource db) {
    OperationsLedger ledger = ledgerWith(db, LEASE);

    // 1 ms later, a 201 taking the whole read timeout would come back 2 s before the lease ends,
    // with less than the 3 s a recording needs.
    DispatchResult result =
        dispatcherWhoseClaimIsThisOld(ledger, Duration.ofSeconds(12).plusMillis(1))
            .dispatch("op-1");

    assertThat(result.outcome()).isEqualTo(DispatchOutcome.NOT_SENT);
    assertThat(result.detail())
        .contains("claimed 12001 ms ago")
        .contains("a POST leaves only within 12000 ms of its claim");
    assertThat(simulator.stats().postsTotal()).isZero();
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.PENDING);
    assertThat(row.dispatchOutcome()).contains("not_sent");
    assertThat(row.leaseOwner()).isEmpty();

    DispatchResult next =
        new DispatchActivitiesImpl(ledger, genace, "worker-a", DispatchGate.OPEN, WINDOW)
            .dispatch("op-1");
    assertThat(next.outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    assertThat(simulator.stats().postsTotal()).isEqualTo(1);
  }

  /**
   * For the 1 s leases below: a POST may leave within 500 ms of its claim, and the fakes then
   * answer after their read timeout, as a frozen process would.
   */
  private static final SendWindow SHORT =
      new SendWindow(Duration.ofMillis(300), Duration.ofMillis(200));

  @Test
  void a_refusal_that_came_after_the_lease_ran_out_is_reported_unknown(DataSource db) {
    OperationsLedger ledger = ledgerWith(db, Duration.ofSeconds(1));
    GenaceClient slowRefusal =
        new AnswerAfter(
            Duration.ofMillis(1500), new CreateOutcome.Refused(422, "input.prompt is required"));

    DispatchResult result =
        new DispatchActivitiesImpl(ledger, slowRefusal, "worker-a", DispatchGate.OPEN, SHORT)
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
        new DispatchActivitiesImpl(ledger, slowLimit, "worker-a", DispatchGate.OPEN, SHORT)
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
    OperationsLedger ledger = ledgerWith(db, LEASE);
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
