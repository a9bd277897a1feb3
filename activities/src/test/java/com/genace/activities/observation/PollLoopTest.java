package com.genace.activities.observation;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.genace.activities.genace.GenaceUnavailableException;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.ObservationWaiter;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.observation.support.ScriptedGenace;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.testing.CapturedLogs;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
import com.genace.workflows.observation.ObservationResult;
import io.temporal.testing.TestWorkflowEnvironment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One claimed poll of the poll loop, run by the test rather than the loop's threads, against the
 * real ledger and a real Temporal test server's completion client (the waiting activity named here
 * does not exist there, as after its workflow moved on). The loop's end-to-end path, with real
 * waiting activities, crashes and takeovers, is the worker module's tests.
 */
@ExtendWith(DatabaseExtension.class)
class PollLoopTest {

  private static final String OP = "op-loop";
  private static final String JOB = "gen_loop";
  private static final Duration CLAIM = Duration.ofSeconds(30);
  private static final PollingPolicy POLICY =
      new PollingPolicy(Duration.ofSeconds(1), Duration.ofSeconds(15), 1.5, 0.2);
  private static final ObservationWaiter GONE = new ObservationWaiter(OP, "run-gone", "1");

  private final AtomicReference<RemoteStatus> genaceSays = new AtomicReference<>();
  private DataSource db;
  private OperationsLedger ledger;
  private TestWorkflowEnvironment temporal;
  private PollLoop loop;
  private GenaceStatusPoll statusPoll;

  @BeforeEach
  void an_operation_on_the_poll_schedule(DataSource db) {
    this.db = db;
    this.ledger = new OperationsLedger(db, CLAIM);
    ledger.create(new NewOperation(OP, "image-v1", "{\"prompt\":\"fox\"}"));
    Lease dispatch =
        ((ClaimResult.Acquired) ledger.claim(OP, "dispatcher", NextAction.DISPATCH)).lease();
    ledger.markSubmitting(dispatch);
    ledger.recordAccepted(dispatch, JOB);
    // The waiting activity registered, polled once itself and put the next poll on the schedule.
    ledger
        .polls()
        .reschedule(ledger.polls().awaitObservation(OP, GONE, true).orElseThrow(), Duration.ZERO);
    temporal = TestWorkflowEnvironment.newInstance();
    statusPoll =
        new GenaceStatusPoll(
            ledger,
            new ScriptedGenace(
                id -> {
                  if (genaceSays.get() == null) {
                    throw new GenaceUnavailableException("503 from Genace");
                  }
                  return new JobSnapshot(id, genaceSays.get(), List.of(), null);
                }),
            "worker-a",
            POLICY,
            Clock.systemUTC(),
            ActivityStats.NONE);
    loop =
        new PollLoop(
            ledger,
            statusPoll,
            new WaitingActivities(temporal.getWorkflowClient()),
            POLICY,
            () -> false,
            () -> false,
            1,
            WaitLimits.DEFAULT,
            Clock.systemUTC(),
            ActivityStats.NONE);
  }

  @AfterEach
  void close() {
    loop.close();
    temporal.close();
  }

  @Test
  void a_running_job_is_polled_again_after_the_pacing() {
    genaceSays.set(RemoteStatus.RUNNING);
    DuePoll claimed = ledger.polls().claimDue(10, CLAIM).get(0);

    loop.pollOnce(claimed);

    loop.flushReschedules();

    assertThat(ledger.get(OP).remoteStatus()).contains(RemoteStatus.RUNNING);
    Instant due = dueAt().orElseThrow();
    // First poll's pacing: 1 s with 20 % jitter, well before the claim's 30 s would have run out.
    assertThat(due).isBefore(Instant.now().plusSeconds(2));
    assertThat(ledger.polls().claimDue(10, CLAIM)).as("not due yet").isEmpty();
  }

  @Test
  void a_render_observed_longer_than_the_limit_logs_one_error_however_often_it_is_polled() {
    genaceSays.set(RemoteStatus.RUNNING);
    sql(
        "UPDATE app_generation_operations SET phase_since = clock_timestamp()"
            + " - interval '7 hours' WHERE operation_id = ?");

    try (CapturedLogs logs = CapturedLogs.of("com.genace.activities.ledger.WaitingTooLong")) {
      loop.pollOnce(ledger.polls().claimDue(10, CLAIM).get(0));
      loop.flushReschedules();
      dueNow();
      loop.pollOnce(ledger.polls().claimDue(10, CLAIM).get(0));
      loop.flushReschedules();

      assertThat(logs.at(Level.ERROR))
          .singleElement()
          .asString()
          .startsWith("operation " + OP + " has been observing for 7h")
          .contains("remote job " + JOB);
    }
    assertThat(ledger.get(OP).tooLongReportedAt()).isPresent();
    assertThat(ledger.get(OP).phase()).as("still observed").isEqualTo(Phase.OBSERVING);
  }

  @Test
  void a_render_younger_than_the_limit_logs_nothing() {
    genaceSays.set(RemoteStatus.RUNNING);
    sql(
        "UPDATE app_generation_operations SET phase_since = clock_timestamp()"
            + " - interval '5 hours' WHERE operation_id = ?");

    try (CapturedLogs logs = CapturedLogs.of("com.genace.activities.ledger.WaitingTooLong")) {
      loop.pollOnce(ledger.polls().claimDue(10, CLAIM).get(0));

      assertThat(logs.at(Level.ERROR)).isEmpty();
    }
    assertThat(ledger.get(OP).tooLongReportedAt()).isEmpty();
  }

  @Test
  void a_claim_overtaken_while_its_poll_was_out_cannot_reschedule() {
    genaceSays.set(RemoteStatus.RUNNING);
    DuePoll stalled = ledger.polls().claimDue(10, CLAIM).get(0);
    dueNow(); // its claim time ran out while its GET was out
    DuePoll takeover = ledger.polls().claimDue(10, CLAIM).get(0);
    Instant takeoverDue = dueAt().orElseThrow();

    loop.pollOnce(stalled);

    loop.flushReschedules();

    assertThat(dueAt()).as("the takeover's claim stands").contains(takeoverDue);
    loop.pollOnce(takeover);
    loop.flushReschedules();
    assertThat(dueAt().orElseThrow()).isBefore(takeoverDue);
  }

  @Test
  void a_failed_poll_whose_claim_a_terminal_snapshot_overtook_tells_the_outcome() {
    DuePoll stalled = ledger.polls().claimDue(10, CLAIM).get(0);
    // Meanwhile another poll recorded the end, which took the operation off the schedule.
    ledger.recordObservedSnapshot(OP, "worker-b", JOB, RemoteStatus.SUCCEEDED, "{}", null);
    genaceSays.set(null); // this poll's GET fails

    java.util.Optional<ObservationResult> outcome =
        new ObservationActivitiesImpl(ledger, statusPoll).pollClaimed(stalled);

    assertThat(outcome).as("the only one left to tell the waiting activity").isPresent();
    assertThat(outcome.get().status()).isEqualTo(RemoteStatus.SUCCEEDED);
    assertThat(dueAt()).isEmpty();
  }

  @Test
  void a_terminal_job_ends_the_schedule_once_no_activity_waits_any_more() {
    genaceSays.set(RemoteStatus.SUCCEEDED);
    DuePoll claimed = ledger.polls().claimDue(10, CLAIM).get(0);

    loop.pollOnce(claimed);

    loop.flushReschedules();

    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.DELIVERING);
    assertThat(dueAt()).as("off the schedule").isEmpty();
  }

  @Test
  void an_operation_that_moved_on_without_an_outcome_leaves_the_schedule() {
    genaceSays.set(RemoteStatus.RUNNING);
    Lease observe =
        ((ClaimResult.Acquired) ledger.claim(OP, "canceller", NextAction.OBSERVE)).lease();
    ledger.cancel(observe, "ops", "not needed");
    DuePoll claimed = ledger.polls().claimDue(10, CLAIM).get(0);

    loop.pollOnce(claimed);

    loop.flushReschedules();

    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.ABANDONED);
    assertThat(dueAt()).isEmpty();
  }

  @Test
  void a_reschedule_waits_for_the_writer_and_never_puts_back_an_ended_observation() {
    genaceSays.set(RemoteStatus.RUNNING);
    DuePoll stalled = ledger.polls().claimDue(10, CLAIM).get(0);
    loop.pollOnce(stalled);
    assertThat(ledger.get(OP).remoteStatus()).contains(RemoteStatus.RUNNING);
    assertThat(dueAt().orElseThrow())
        .as("asked for, not written yet: still the claim's token")
        .isEqualTo(stalled.token());
    // Before the writer runs, another poll records the end, which takes it off the schedule.
    ledger.recordObservedSnapshot(OP, "worker-b", JOB, RemoteStatus.SUCCEEDED, "{}", null);

    loop.flushReschedules();

    assertThat(dueAt()).as("the overtaken reschedule changed nothing").isEmpty();
    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.DELIVERING);
  }

  @Test
  void closing_hands_back_the_claims_no_poll_thread_started_due_at_once() throws Exception {
    String second = "op-loop-2";
    onTheSchedule(second, "gen_loop_2");
    CountDownLatch polling = new CountDownLatch(1);
    // One poll thread, whose GET never answers: the other claimed operation waits behind it.
    GenaceStatusPoll stuck =
        new GenaceStatusPoll(
            ledger,
            new ScriptedGenace(
                id -> {
                  polling.countDown();
                  try {
                    new CountDownLatch(1).await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  throw new GenaceUnavailableException("interrupted while waiting for Genace");
                }),
            "worker-a",
            POLICY,
            Clock.systemUTC(),
            ActivityStats.NONE);
    PollLoop running =
        new PollLoop(
                ledger,
                stuck,
                new WaitingActivities(temporal.getWorkflowClient()),
                POLICY,
                () -> true,
                () -> false,
                1,
                WaitLimits.DEFAULT,
                Clock.systemUTC(),
                ActivityStats.NONE)
            .start();
    assertThat(polling.await(30, TimeUnit.SECONDS)).isTrue();
    Instant claimsRunOut = Instant.now().plus(CLAIM).minusSeconds(5);

    running.close(); // the stuck poll is cut off after the close's wait

    for (String id : List.of(OP, second)) {
      assertThat(dueAt(id).orElseThrow())
          .as("%s is due again soon, not when the claim runs out", id)
          .isBefore(claimsRunOut);
    }
    assertThat(ledger.polls().claimDue(10, CLAIM))
        .as("the one never started is due at once")
        .extracting(due -> due.row().operationId())
        .contains(second);
  }

  private void onTheSchedule(String id, String job) {
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"fox\"}"));
    Lease dispatch =
        ((ClaimResult.Acquired) ledger.claim(id, "dispatcher", NextAction.DISPATCH)).lease();
    ledger.markSubmitting(dispatch);
    ledger.recordAccepted(dispatch, job);
    ObservationWaiter gone = new ObservationWaiter(id, "run-gone", "1");
    ledger
        .polls()
        .reschedule(ledger.polls().awaitObservation(id, gone, true).orElseThrow(), Duration.ZERO);
  }

  private java.util.Optional<Instant> dueAt() {
    return dueAt(OP);
  }

  private java.util.Optional<Instant> dueAt(String id) {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT poll_due_at FROM app_generation_operations WHERE operation_id = ?")) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return java.util.Optional.ofNullable(rs.getTimestamp(1)).map(java.sql.Timestamp::toInstant);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void sql(String statement) {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(statement)) {
      s.setString(1, OP);
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void dueNow() {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE app_generation_operations SET poll_due_at = clock_timestamp()"
                    + " - interval '1 ms' WHERE operation_id = ?")) {
      s.setString(1, OP);
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
