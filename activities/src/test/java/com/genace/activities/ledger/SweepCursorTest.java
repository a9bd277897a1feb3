package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.LedgerFixtures;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The orphan sweeper's stored position: where a walk resumes, moved by one pass at a time. */
class SweepCursorTest {

  private static final int PASSES = 8;

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final OperationsLedger ledger = fixtures.ledger();

  @Test
  void a_new_ledger_starts_at_the_beginning_and_the_position_survives_a_new_reader() {
    SweepCursor first = ledger.sweepCursor("worker-a");
    assertThat(first.position()).isEqualTo(SweepPosition.START);
    assertThat(first.generation()).isZero();
    assertThat(first.walksCompleted()).isZero();

    // Microseconds: what PostgreSQL keeps of an instant.
    SweepPosition there =
        new SweepPosition("in_review", Instant.now().truncatedTo(ChronoUnit.MICROS));
    assertThat(ledger.moveSweepCursor(0, there, false, "worker-a")).isTrue();

    SweepCursor read = ledger.sweepCursor("worker-b");
    assertThat(read.position()).isEqualTo(there);
    assertThat(read.generation()).isEqualTo(1);
    assertThat(read.movedBy()).isEqualTo("worker-a");
  }

  @Test
  void a_stale_generation_moves_nothing_and_a_completed_walk_starts_again() {
    SweepPosition there = new SweepPosition("observing", Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(ledger.moveSweepCursor(ledger.sweepCursor("w").generation(), there, false, "w"))
        .isTrue();

    assertThat(ledger.moveSweepCursor(0, SweepPosition.START, true, "late")).isFalse();
    assertThat(ledger.sweepCursor("w").position()).isEqualTo(there);

    assertThat(ledger.moveSweepCursor(1, SweepPosition.START, true, "w")).isTrue();
    SweepCursor after = ledger.sweepCursor("w");
    assertThat(after.position()).isEqualTo(SweepPosition.START);
    assertThat(after.walksCompleted()).isEqualTo(1);
    assertThatThrownBy(() -> ledger.moveSweepCursor(2, there, true, "w"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void of_passes_racing_from_the_same_reading_exactly_one_moves_the_position() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(PASSES);
    try {
      for (int round = 0; round < 5; round++) {
        long generation = ledger.sweepCursor("reader").generation();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> moves = new ArrayList<>();
        for (int i = 0; i < PASSES; i++) {
          SweepPosition to =
              new SweepPosition("pending", Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i));
          String owner = "pass-" + i;
          moves.add(
              pool.submit(
                  () -> {
                    go.await();
                    return ledger.moveSweepCursor(generation, to, false, owner);
                  }));
        }
        go.countDown();
        List<Boolean> results = new ArrayList<>();
        for (Future<Boolean> move : moves) {
          results.add(move.get());
        }

        assertThat(results).as("round %d", round).containsOnlyOnce(true);
        int winner = results.indexOf(true);
        SweepCursor after = ledger.sweepCursor("reader");
        assertThat(after.generation()).isEqualTo(generation + 1);
        assertThat(after.movedBy()).isEqualTo("pass-" + winner);
        assertThat(after.position().createdAt())
            .isEqualTo(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(winner));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
