package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.genace.activities.db.Sql;
import com.genace.activities.testing.CapturedLogs;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When an operation entered its phase, the fleet's oldest observation and delivery, the one ERROR
 * line per operation and phase that says it waits too long, and the last delivery failure. Ages are
 * made by moving {@code phase_since} back by the database clock, never by waiting.
 */
class WaitingTooLongTest {

  private static final Duration SIX_HOURS = Duration.ofHours(6);

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final DataSource db = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  @Test
  void the_row_rules_record_when_the_phase_began_and_clear_the_report_on_a_phase_change() {
    fixtures.pending("op-1");
    OperationRow pending = ledger.get("op-1");
    assertThat(pending.phaseSince()).isPresent();

    Lease lease = fixtures.claim("op-1", LedgerFixtures.WORKER, NextAction.DISPATCH);
    OperationRow claimed = ledger.get("op-1");
    assertThat(claimed.phaseSince())
        .as("a claim is no phase change")
        .isEqualTo(pending.phaseSince());

    ledger.markSubmitting(lease);
    ledger.recordAccepted(lease, "gen_1");
    OperationRow observing = ledger.get("op-1");
    assertThat(observing.phaseSince().orElseThrow()).isAfter(pending.phaseSince().orElseThrow());

    ageInPhase("op-1", "7 hours");
    assertThat(ledger.reportWaitingTooLong("op-1", Phase.OBSERVING, SIX_HOURS)).isTrue();
    assertThat(ledger.get("op-1").tooLongReportedAt()).isPresent();

    Lease observe = fixtures.claim("op-1", LedgerFixtures.WORKER, NextAction.OBSERVE);
    ledger.recordSnapshot(observe, RemoteStatus.SUCCEEDED, "{\"outputs\":[]}", null);
    OperationRow delivering = ledger.get("op-1");
    assertThat(delivering.phase()).isEqualTo(Phase.DELIVERING);
    assertThat(delivering.tooLongReportedAt()).as("reported observing, not delivering").isEmpty();
    assertThat(delivering.inPhaseSince()).isAfter(observing.phaseSince().orElseThrow());
  }

  @Test
  void an_operation_observing_too_long_is_reported_once_whoever_asks_and_a_young_one_never() {
    fixtures.observing("op-old", "gen_old");
    fixtures.observing("op-young", "gen_young");
    ageInPhase("op-old", "7 hours");
    ageInPhase("op-young", "5 hours");
    OperationsLedger anotherWorker = new OperationsLedger(db);

    try (CapturedLogs logs = CapturedLogs.of(WaitingTooLong.class.getName())) {
      boolean first = ledger.reportWaitingTooLong("op-old", Phase.OBSERVING, SIX_HOURS);
      boolean again = ledger.reportWaitingTooLong("op-old", Phase.OBSERVING, SIX_HOURS);
      boolean elsewhere = anotherWorker.reportWaitingTooLong("op-old", Phase.OBSERVING, SIX_HOURS);
      boolean young = ledger.reportWaitingTooLong("op-young", Phase.OBSERVING, SIX_HOURS);
      boolean wrongPhase = ledger.reportWaitingTooLong("op-old", Phase.DELIVERING, SIX_HOURS);

      assertThat(first).isTrue();
      assertThat(again).isFalse();
      assertThat(elsewhere).isFalse();
      assertThat(young).isFalse();
      assertThat(wrongPhase).isFalse();
      assertThat(logs.at(Level.ERROR))
          .singleElement()
          .asString()
          .startsWith("operation op-old has been observing for 7h")
          .contains("longer than the limit of 6h")
          .contains("remote job gen_old")
          .endsWith("it is still retried; see ./genace ops show op-old");
    }
    assertThat(ledger.get("op-young").tooLongReportedAt()).isEmpty();
  }

  @Test
  void the_process_side_check_skips_rows_already_reported_or_too_young() {
    fixtures.observing("op-1", "gen_1");
    ageInPhase("op-1", "7 hours");
    OperationRow old = ledger.get("op-1");
    java.time.Instant now = java.time.Instant.now();

    assertThat(OperationsLedger.mayWaitTooLong(old, SIX_HOURS, now)).isTrue();
    assertThat(OperationsLedger.mayWaitTooLong(old, Duration.ofHours(8), now)).isFalse();
    ledger.reportWaitingTooLong("op-1", Phase.OBSERVING, SIX_HOURS);
    assertThat(OperationsLedger.mayWaitTooLong(ledger.get("op-1"), SIX_HOURS, now)).isFalse();
  }

  @Test
  void the_fleet_figures_give_the_age_of_the_oldest_observation_and_delivery() {
    LedgerStatistics statistics = new LedgerStatistics(Sql.of(db), Duration.ZERO, "worker-a");
    LedgerStatistics.Snapshot none = statistics.read();
    assertThat(none.oldestObservationAgeSeconds()).isZero();
    assertThat(none.oldestDeliveryAgeSeconds()).isZero();

    fixtures.observing("op-obs-1", "gen_1");
    fixtures.observing("op-obs-2", "gen_2");
    fixtures.observing("op-del", "gen_3");
    Lease observe = fixtures.claim("op-del", LedgerFixtures.WORKER, NextAction.OBSERVE);
    ledger.recordSnapshot(observe, RemoteStatus.SUCCEEDED, "{\"outputs\":[]}", null);
    fixtures.observing("op-done", "gen_4");
    ageInPhase("op-obs-1", "2 hours");
    ageInPhase("op-obs-2", "10 minutes");
    ageInPhase("op-del", "30 minutes");
    // A finished operation's age counts for nothing.
    fixtures.execute(
        "UPDATE app_generation_operations SET phase = 'failed', next_action = 'none',"
            + " phase_since = clock_timestamp() - interval '3 days' WHERE operation_id = ?",
        "op-done");

    LedgerStatistics.Snapshot figures = statistics.read();

    // Read a moment after the rows were aged: at least their age, and not much more.
    assertThat(figures.oldestObservationAgeSeconds()).isBetween(7200.0, 7200.0 + 60);
    assertThat(figures.oldestDeliveryAgeSeconds()).isBetween(1800.0, 1800.0 + 60);
  }

  @Test
  void a_delivery_failure_is_recorded_under_the_lease_that_made_the_attempt() {
    fixtures.observing("op-1", "gen_1");
    Lease observe = fixtures.claim("op-1", LedgerFixtures.WORKER, NextAction.OBSERVE);
    ledger.recordSnapshot(observe, RemoteStatus.SUCCEEDED, "{\"outputs\":[]}", null);
    Lease deliver = fixtures.claim("op-1", LedgerFixtures.WORKER, NextAction.DELIVER);
    long revision = ledger.get("op-1").revision();

    assertThat(ledger.recordDeliveryFailure(deliver, "attempt 2: artifact mismatch: x")).isTrue();
    OperationRow row = ledger.get("op-1");
    assertThat(row.deliveryFailure()).contains("attempt 2: artifact mismatch: x");
    assertThat(row.deliveryFailedAt()).isPresent();
    assertThat(row.revision()).as("no state changed").isEqualTo(revision);
    assertThat(ledger.history("op-1")).noneMatch(t -> t.event().contains("deliver"));

    fixtures.expireLease("op-1");
    fixtures.claim("op-1", "worker-b", NextAction.DELIVER);
    assertThat(ledger.recordDeliveryFailure(deliver, "attempt 3: too late")).isFalse();
    assertThat(ledger.get("op-1").deliveryFailure()).contains("attempt 2: artifact mismatch: x");
  }

  private void ageInPhase(String operationId, String age) {
    fixtures.execute(
        "UPDATE app_generation_operations SET phase_since = clock_timestamp() - interval '"
            + age
            + "' WHERE operation_id = ?",
        operationId);
  }
}
