package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ledger's poll schedule: registration, claims by token, and loops that never overlap. */
class PollScheduleTest {

  private static final Duration CLAIM = Duration.ofSeconds(30);
  private static final ObservationWaiter WAITER = new ObservationWaiter("op-1", "run-1", "7");

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();
  private final DataSource dataSource = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  @Test
  void the_waiting_activity_claims_the_first_poll_and_the_next_is_due_only_when_rescheduled() {
    fixtures.observing("op-1", "gen_1");

    DuePoll first = ledger.polls().awaitObservation("op-1", WAITER, true).orElseThrow();

    assertThat(first.row().operationId()).isEqualTo("op-1");
    assertThat(first.row().remoteJobId()).contains("gen_1");
    assertThat(first.waiter()).contains(WAITER);
    assertThat(first.pollCount()).isZero();
    assertThat(ledger.polls().claimDue(10, CLAIM)).as("claimed by the waiter").isEmpty();

    assertThat(ledger.polls().reschedule(first, Duration.ZERO)).isTrue();
    DuePoll next = ledger.polls().claimDue(10, CLAIM).get(0);
    assertThat(next.pollCount()).isEqualTo(1);
    assertThat(next.waiter()).contains(WAITER);
    assertThat(ledger.polls().finish(next)).isTrue();

    dueNow("op-1");
    assertThat(ledger.polls().claimDue(10, CLAIM)).as("finished: off the schedule").isEmpty();
  }

  @Test
  void an_accepted_operation_is_on_the_schedule_before_any_activity_registers() {
    fixtures.observing("op-1", "gen_1");

    assertThat(ledger.polls().claimDue(10, CLAIM))
        .as("the waiting activity has a few seconds to claim its first poll")
        .isEmpty();
    dueNow("op-1");
    DuePoll unclaimed = ledger.polls().claimDue(10, CLAIM).get(0);
    assertThat(unclaimed.waiter()).as("Temporal never started the activity").isEmpty();
    assertThat(unclaimed.pollCount()).isZero();

    assertThat(ledger.polls().reschedule(unclaimed, Duration.ZERO)).isTrue();
    DuePoll late = ledger.polls().awaitObservation("op-1", WAITER, true).orElseThrow();
    assertThat(late.pollCount()).as("the loop's polls count for its backoff").isEqualTo(1);
    assertThat(late.waiter()).contains(WAITER);
  }

  @Test
  void a_found_remote_job_goes_on_the_schedule_as_an_accepted_post_does() {
    fixtures.observing("op-1", "gen_1");
    ledger.polls().finish(ledger.polls().awaitObservation("op-1", WAITER, true).orElseThrow());
    Lease review =
        ((ClaimResult.Acquired) ledger.claim("op-1", "worker-a", NextAction.OBSERVE)).lease();
    ledger.openReview(review, "remote_job_not_found", "404");
    Lease reconcile =
        ((ClaimResult.Acquired) ledger.claim("op-1", "worker-a", NextAction.RECONCILE)).lease();

    ledger.resolveReview(
        reconcile,
        ReviewDecision.FOUND_REMOTE_JOB,
        Optional.of("gen_2"),
        "ops",
        "found it on Genace");

    dueNow("op-1");
    DuePoll due = ledger.polls().claimDue(10, CLAIM).get(0);
    assertThat(due.row().remoteJobId()).contains("gen_2");
    assertThat(due.waiter()).as("the earlier observation's activity is forgotten").isEmpty();
  }

  @Test
  void a_retry_of_an_observing_operation_off_the_schedule_makes_it_due_at_once() {
    fixtures.observing("op-1", "gen_1");
    fixtures.execute(
        "UPDATE app_generation_operations SET poll_due_at = NULL WHERE operation_id = ?", "op-1");

    DuePoll retried = ledger.polls().awaitObservation("op-1", WAITER, false).orElseThrow();

    assertThat(retried.waiter()).contains(WAITER);
    List<DuePoll> due = ledger.polls().claimDue(10, CLAIM);
    assertThat(due).extracting(p -> p.row().operationId()).containsExactly("op-1");
  }

  @Test
  void an_operation_past_observation_is_not_put_on_the_schedule() {
    fixtures.pending("op-1");

    assertThat(ledger.polls().awaitObservation("op-1", WAITER, true)).isEmpty();
    assertThat(ledger.polls().claimDue(10, CLAIM)).isEmpty();
  }

  @Test
  void a_claim_whose_time_ran_out_is_taken_over_and_can_no_longer_reschedule_or_finish() {
    fixtures.observing("op-1", "gen_1");
    DuePoll crashed = ledger.polls().awaitObservation("op-1", WAITER, true).orElseThrow();

    dueNow("op-1"); // the claim time has run out: whoever claimed it died or stalled
    DuePoll takeover = ledger.polls().claimDue(10, CLAIM).get(0);

    assertThat(takeover.row().operationId()).isEqualTo("op-1");
    assertThat(ledger.polls().reschedule(crashed, Duration.ZERO)).isFalse();
    assertThat(ledger.polls().finish(crashed)).isFalse();
    assertThat(ledger.polls().claimDue(10, CLAIM)).as("still the takeover's").isEmpty();
    assertThat(ledger.polls().reschedule(takeover, Duration.ZERO)).isTrue();
  }

  @Test
  void the_same_activity_registering_again_keeps_its_backoff_and_a_new_one_starts_over() {
    fixtures.observing("op-1", "gen_1");
    ledger
        .polls()
        .reschedule(
            ledger.polls().awaitObservation("op-1", WAITER, true).orElseThrow(), Duration.ZERO);
    DuePoll loops = ledger.polls().claimDue(10, CLAIM).get(0);

    DuePoll retried = ledger.polls().awaitObservation("op-1", WAITER, false).orElseThrow();

    assertThat(retried.pollCount()).as("its next attempt keeps the step").isEqualTo(1);
    assertThat(retried.token()).as("and leaves the loop's claim").isEqualTo(loops.token());
    assertThat(ledger.polls().reschedule(loops, Duration.ZERO)).isTrue();
    DuePoll again = ledger.polls().awaitObservation("op-1", WAITER, true).orElseThrow();
    assertThat(again.pollCount()).isEqualTo(2);
    assertThat(ledger.polls().reschedule(loops, Duration.ZERO)).as("overtaken").isFalse();
    ObservationWaiter another = new ObservationWaiter("op-1", "run-1", "12");
    DuePoll fresh = ledger.polls().awaitObservation("op-1", another, true).orElseThrow();
    assertThat(fresh.waiter()).contains(another);
    assertThat(fresh.pollCount()).isZero();
  }

  @Test
  void a_terminal_snapshot_takes_the_operation_off_and_an_untold_outcome_puts_it_back() {
    fixtures.observing("op-1", "gen_1");
    DuePoll claimed = ledger.polls().awaitObservation("op-1", WAITER, true).orElseThrow();

    assertThat(
            ledger.recordObservedSnapshot(
                "op-1", "worker-a", "gen_1", RemoteStatus.SUCCEEDED, "{}", null))
        .isInstanceOf(ObservedSnapshot.Recorded.class);
    dueNow("op-1");
    assertThat(ledger.polls().claimDue(10, CLAIM)).as("nothing left to poll").isEmpty();

    assertThat(ledger.polls().retryTelling(claimed, Duration.ZERO)).isTrue();
    assertThat(ledger.polls().retryTelling(claimed, Duration.ZERO))
        .as("back on: its token is gone")
        .isFalse();
    DuePoll toTell = ledger.polls().claimDue(10, CLAIM).get(0);
    assertThat(toTell.row().phase()).isEqualTo(Phase.DELIVERING);
    assertThat(toTell.waiter()).contains(WAITER);
  }

  @Test
  void many_reschedules_in_one_statement_apply_only_under_their_own_claims() {
    for (String id : List.of("op-1", "op-2", "op-3")) {
      fixtures.observing(id, "gen_" + id);
      dueNow(id);
    }
    List<DuePoll> claimed = ledger.polls().claimDue(10, CLAIM);
    assertThat(claimed).hasSize(3);
    DuePoll stale =
        claimed.stream()
            .filter(p -> p.row().operationId().equals("op-2"))
            .findFirst()
            .orElseThrow();
    dueNow("op-2"); // its claim ran out while its GET was out
    DuePoll takeover = ledger.polls().claimDue(10, CLAIM).get(0);

    Set<String> applied =
        ledger
            .polls()
            .rescheduleAll(
                claimed.stream().map(p -> new NextPoll(p, Duration.ofSeconds(3))).toList());

    assertThat(applied).containsExactlyInAnyOrder("op-1", "op-3");
    assertThat(stale.token()).isNotEqualTo(takeover.token());
    assertThat(ledger.polls().claimDue(10, CLAIM)).as("none due yet").isEmpty();
    assertThat(ledger.polls().reschedule(takeover, Duration.ZERO))
        .as("the takeover's stands")
        .isTrue();
    dueNow("op-1");
    assertThat(ledger.polls().claimDue(10, CLAIM))
        .extracting(p -> p.row().operationId() + "@" + p.pollCount())
        .containsExactlyInAnyOrder("op-1@1", "op-2@1");
  }

  @Test
  void several_loops_claiming_at_once_share_the_due_operations_without_overlap() throws Exception {
    int operations = 300;
    for (int i = 0; i < operations; i++) {
      String id = "op-" + i;
      fixtures.observing(id, "gen_" + i);
      ledger.polls().awaitObservation(id, new ObservationWaiter(id, "run", "1"), true);
      dueNow(id);
    }
    int loops = 6;
    ExecutorService pool = Executors.newFixedThreadPool(loops);
    List<Database> pools = new ArrayList<>();
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<String>>> claims = new ArrayList<>();
      for (int loop = 0; loop < loops; loop++) {
        // Each loop on its own connection pool, as separate workers are.
        Database database = Database.open(DatabaseConfig.of(TestDatabase.url()).withMaxPoolSize(1));
        pools.add(database);
        OperationsLedger own = new OperationsLedger(database.dataSource());
        claims.add(
            pool.submit(
                () -> {
                  start.await();
                  List<String> mine = new ArrayList<>();
                  List<DuePoll> batch;
                  while (!(batch = own.polls().claimDue(7, CLAIM)).isEmpty()) {
                    batch.forEach(p -> mine.add(p.row().operationId()));
                  }
                  return mine;
                }));
      }
      start.countDown();
      List<String> all = new ArrayList<>();
      for (Future<List<String>> claim : claims) {
        all.addAll(claim.get());
      }

      assertThat(all).as("every due operation claimed once").hasSize(operations);
      assertThat(all).doesNotHaveDuplicates();
    } finally {
      pool.shutdownNow();
      pools.forEach(Database::close);
    }
  }

  /** Moves a scheduled poll's due time into the past: what waiting for it would do. */
  private void dueNow(String operationId) {
    fixtures.execute(
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp() - interval '1 ms'"
            + " WHERE operation_id = ? AND poll_due_at IS NOT NULL",
        operationId);
  }
}
