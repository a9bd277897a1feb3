package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One poll's snapshot in one statement: when it applies, what it leaves, and how it races. */
class ObservedSnapshotTest {

  private static final String OP = "op-1";
  private static final String JOB = "gen_1";

  /** An operation observing its job. */
  @RegisterExtension
  final LedgerFixtures fixtures = LedgerFixtures.fresh().given(f -> f.observing(OP, JOB));

  private final DataSource dataSource = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  private ObservedSnapshot observe(String owner, String jobId, RemoteStatus status) {
    return ledger.recordObservedSnapshot(
        OP,
        owner,
        jobId,
        status,
        "{\"status\":\"" + status.wire() + "\"}",
        status == RemoteStatus.FAILED ? "render_failed" : null);
  }

  private static ObservedSnapshot.Reason reasonOf(ObservedSnapshot outcome) {
    assertThat(outcome).isInstanceOf(ObservedSnapshot.Refused.class);
    return ((ObservedSnapshot.Refused) outcome).reason();
  }

  @Test
  void a_newer_snapshot_is_recorded_under_a_new_revision_with_the_snapshot_row_and_no_lease() {
    long before = ledger.get(OP).revision();

    ObservedSnapshot outcome = observe("worker-a", JOB, RemoteStatus.RUNNING);

    assertThat(outcome).isEqualTo(new ObservedSnapshot.Recorded(before + 1));
    OperationRow row = ledger.get(OP);
    assertThat(row.revision()).isEqualTo(before + 1);
    assertThat(row.phase()).isEqualTo(Phase.OBSERVING);
    assertThat(row.remoteStatus()).contains(RemoteStatus.RUNNING);
    assertThat(row.remoteSnapshotJson()).hasValueSatisfying(s -> assertThat(s).contains("running"));
    assertThat(row.leaseOwner()).isEmpty();
    assertThat(row.leaseUntil()).isEmpty();
    TransitionRow last = ledger.history(OP).get(ledger.history(OP).size() - 1);
    assertThat(last.event()).isEqualTo("snapshot");
    assertThat(last.accepted()).isTrue();
    assertThat(last.revision()).isEqualTo(before + 1);
    assertThat(last.owner()).contains("worker-a");
    assertThat(last.fromPhase()).contains("observing");
    assertThat(last.toPhase()).contains("observing");
    assertThat(last.detailsJson()).isEqualTo("{\"status\": \"running\"}");
  }

  @Test
  void terminal_snapshots_move_the_operation_on_as_the_fenced_write_does() {
    assertThat(observe("worker-a", JOB, RemoteStatus.SUCCEEDED))
        .isInstanceOf(ObservedSnapshot.Recorded.class);
    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.DELIVERING);
    assertThat(ledger.get(OP).nextAction()).isEqualTo(NextAction.DELIVER);
    assertThat(ledger.history(OP).get(ledger.history(OP).size() - 1).toPhase())
        .contains("delivering");

    fixtures.observing("op-2", "gen_2");
    assertThat(
            ledger.recordObservedSnapshot(
                "op-2", "worker-a", "gen_2", RemoteStatus.FAILED, "{}", "render_failed"))
        .isInstanceOf(ObservedSnapshot.Recorded.class);
    OperationRow failed = ledger.get("op-2");
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.nextAction()).isEqualTo(NextAction.NONE);
    assertThat(failed.failureReason()).contains("render_failed");
  }

  @Test
  void a_backward_or_repeated_status_is_refused_and_changes_nothing() {
    observe("worker-a", JOB, RemoteStatus.RUNNING);
    OperationRow before = ledger.get(OP);
    int rows = ledger.history(OP).size();

    assertThat(reasonOf(observe("worker-b", JOB, RemoteStatus.RUNNING)))
        .isEqualTo(ObservedSnapshot.Reason.NOT_NEWER);
    assertThat(ledger.history(OP)).as("the same status again is quiet").hasSize(rows);

    assertThat(reasonOf(observe("worker-b", JOB, RemoteStatus.QUEUED)))
        .isEqualTo(ObservedSnapshot.Reason.NOT_NEWER);
    assertThat(ledger.get(OP)).isEqualTo(before);
    TransitionRow late = ledger.history(OP).get(rows);
    assertThat(late.accepted()).isFalse();
    assertThat(late.detailsJson()).contains("not_permitted");
  }

  @Test
  void a_snapshot_of_another_job_than_the_one_observed_is_refused() {
    OperationRow before = ledger.get(OP);
    int rows = ledger.history(OP).size();

    assertThat(reasonOf(observe("worker-a", "gen_other", RemoteStatus.RUNNING)))
        .isEqualTo(ObservedSnapshot.Reason.JOB_CHANGED);
    assertThat(ledger.get(OP)).isEqualTo(before);
    assertThat(ledger.history(OP)).hasSize(rows);
  }

  @Test
  void an_operation_in_another_phase_is_refused_and_the_row_says_where_it_is() {
    observe("worker-a", JOB, RemoteStatus.SUCCEEDED);
    OperationRow delivering = ledger.get(OP);
    int rows = ledger.history(OP).size();

    ObservedSnapshot outcome = observe("worker-b", JOB, RemoteStatus.RUNNING);

    assertThat(reasonOf(outcome)).isEqualTo(ObservedSnapshot.Reason.MOVED_ON);
    assertThat(((ObservedSnapshot.Refused) outcome).current()).isEqualTo(delivering);
    assertThat(ledger.get(OP)).isEqualTo(delivering);
    assertThat(ledger.history(OP)).hasSize(rows);
  }

  @Test
  void another_owners_live_lease_refuses_it_without_a_history_row() {
    Lease theirs = fixtures.claim(OP, "worker-b", NextAction.OBSERVE);
    int rows = ledger.history(OP).size();

    ObservedSnapshot outcome = observe("worker-a", JOB, RemoteStatus.RUNNING);

    assertThat(reasonOf(outcome)).isEqualTo(ObservedSnapshot.Reason.LEASED);
    assertThat(((ObservedSnapshot.Refused) outcome).current().leaseUntil())
        .contains(theirs.until());
    assertThat(ledger.get(OP).leaseOwner()).contains("worker-b");
    assertThat(ledger.get(OP).remoteStatus()).isEmpty();
    assertThat(ledger.history(OP)).hasSize(rows);
  }

  @Test
  void an_expired_lease_does_not_block_it_and_its_holder_is_then_denied() {
    Lease stale = fixtures.claim(OP, "worker-b", NextAction.OBSERVE);
    fixtures.expireLease(OP);

    assertThat(observe("worker-a", JOB, RemoteStatus.RUNNING))
        .isEqualTo(new ObservedSnapshot.Recorded(stale.revision() + 1));

    OperationRow recorded = ledger.get(OP);
    assertThat(ledger.recordSnapshot(stale, RemoteStatus.SUCCEEDED, "{\"s\":\"late\"}", null))
        .isEqualTo(WriteResult.DENIED);
    assertThat(ledger.get(OP)).isEqualTo(recorded);
  }

  @Test
  void our_own_live_lease_is_taken_over_under_a_new_revision_that_fences_it() {
    Lease mine = fixtures.claim(OP, "worker-a", NextAction.OBSERVE);

    assertThat(observe("worker-a", JOB, RemoteStatus.RUNNING))
        .isEqualTo(new ObservedSnapshot.Recorded(mine.revision() + 1));
    assertThat(ledger.get(OP).leaseOwner()).isEmpty();
    assertThat(ledger.recordSnapshot(mine, RemoteStatus.SUCCEEDED, "{}", null))
        .isEqualTo(WriteResult.DENIED);
  }

  /**
   * Observers (this statement) race claimers (claim, then the fenced write and release) of other
   * owners on real connections, half of the rounds with claimers whose leases expire at once, so
   * that their writes come under stale leases.
   *
   * <p>With live leases exactly one snapshot is recorded. With expiring ones it may be none: the
   * observers that wait on a claim's row lock see its lease still live (refused as leased), and the
   * claimer's own write comes after the lease ran out (denied). What never happens, in any round,
   * is two recorded snapshots, or one written under a stale lease.
   */
  @Test
  void racing_claim_and_write_of_other_owners_at_most_one_records_and_no_stale_lease_writes()
      throws Exception {
    int racers = 4;
    OperationsLedger expiring = new OperationsLedger(dataSource, Duration.ofMillis(1));
    ExecutorService pool = Executors.newFixedThreadPool(2 * racers);
    try {
      for (int round = 0; round < 12; round++) {
        String id = "race-" + round;
        String job = "gen_race_" + round;
        fixtures.observing(id, job);
        long start = ledger.get(id).revision();
        OperationsLedger claimers = round % 2 == 0 ? ledger : expiring;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Long>> observers = new ArrayList<>();
        List<Future<ClaimAndWrite>> writers = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
          String observer = "observer-" + i;
          String claimer = "claimer-" + i;
          observers.add(
              pool.submit(
                  awaiting(
                      go,
                      () ->
                          ledger.recordObservedSnapshot(
                                      id, observer, job, RemoteStatus.RUNNING, "{}", null)
                                  instanceof ObservedSnapshot.Recorded recorded
                              ? recorded.revision()
                              : -1L)));
          writers.add(pool.submit(awaiting(go, () -> claimAndWrite(claimers, id, claimer))));
        }
        go.countDown();

        List<Long> recorded = new ArrayList<>();
        for (Future<Long> observer : observers) {
          long revision = observer.get();
          if (revision >= 0) {
            recorded.add(revision);
          }
        }
        List<ClaimAndWrite> claimed = new ArrayList<>();
        for (Future<ClaimAndWrite> writer : writers) {
          ClaimAndWrite result = writer.get();
          if (result != null) {
            claimed.add(result);
          }
        }
        List<Long> applied = new ArrayList<>(recorded);
        claimed.stream()
            .filter(c -> c.written() == WriteResult.APPLIED)
            .forEach(c -> applied.add(c.lease().revision()));

        boolean leasesExpire = claimers == expiring;
        if (leasesExpire) {
          assertThat(applied).as("round %d: snapshots applied", round).hasSizeLessThanOrEqualTo(1);
        } else {
          assertThat(applied).as("round %d: snapshots applied", round).hasSize(1);
        }
        List<TransitionRow> accepted =
            ledger.history(id).stream()
                .filter(t -> t.event().equals("snapshot") && t.accepted())
                .toList();
        assertThat(accepted.stream().map(TransitionRow::revision).toList())
            .as("round %d: revisions of the accepted snapshots", round)
            .isEqualTo(applied);
        // Every fence handed out (claims and recorded snapshots) is new and above the start.
        Set<Long> fences = new HashSet<>(recorded);
        claimed.forEach(c -> fences.add(c.lease().revision()));
        assertThat(fences).hasSize(recorded.size() + claimed.size()).allMatch(r -> r > start);
        // A claimer whose write was denied held a stale lease (expired, or fenced by a newer
        // revision): under its revision the history holds only the denial.
        OperationRow row = ledger.get(id);
        if (applied.isEmpty()) {
          assertThat(row.remoteStatus()).isNotEqualTo(Optional.of(RemoteStatus.RUNNING));
        } else {
          assertThat(row.remoteStatus()).contains(RemoteStatus.RUNNING);
        }
        List<TransitionRow> history = ledger.history(id);
        claimed.stream()
            .filter(c -> c.written() == WriteResult.DENIED)
            .forEach(
                c ->
                    assertThat(history)
                        .filteredOn(t -> t.revision() == c.lease().revision())
                        .isNotEmpty()
                        .noneMatch(TransitionRow::accepted));
        assertThat(row.revision()).isEqualTo(fences.stream().max(Long::compare).orElseThrow());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private record ClaimAndWrite(Lease lease, WriteResult written) {}

  /** An observe claim and the fenced write with release; null when the claim acquired nothing. */
  private static ClaimAndWrite claimAndWrite(OperationsLedger ledger, String id, String owner) {
    ClaimResult claim = ledger.claim(id, owner, NextAction.OBSERVE);
    if (!(claim instanceof ClaimResult.Acquired acquired)) {
      return null;
    }
    return new ClaimAndWrite(
        acquired.lease(),
        ledger.recordSnapshot(acquired.lease(), RemoteStatus.RUNNING, "{}", null));
  }

  private static <T> Callable<T> awaiting(CountDownLatch go, Callable<T> work) {
    return () -> {
      go.await();
      return work.call();
    };
  }
}
