package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fenced writes built by the builder, run on the real PostgreSQL: whatever condition a write adds
 * (an {@code OR} included), a stale lease writes nothing, and a write under a live lease changes
 * its own row only. (The ledger's own statements are guarded by the ledger's tests:
 * LeaseFencingTest, LeaseSafetyPropertyTest and the others.)
 */
class FencedWriteTest {

  private static final String OP = "op-fenced";
  private static final String BYSTANDER = "op-bystander";

  @RegisterExtension
  final LedgerFixtures fixtures =
      LedgerFixtures.fresh()
          .given(
              f -> {
                f.observing(OP, "gen_fenced");
                f.observing(BYSTANDER, "gen_bystander");
              });

  private final OperationsLedger ledger = fixtures.ledger();
  private final Sql sql = Sql.of(fixtures.dataSource());

  /** A write that a future change might permit in either of two phases: an {@code OR}. */
  private static final SqlStatement NOTE_EITHER_PHASE =
      FencedWrite.named("note_either_phase")
          .action(NextAction.OBSERVE)
          .args("details jsonb", "note text")
          .set("failure_reason = a.note, updated_at = clock_timestamp()")
          .permittedWhen("o.phase = 'delivering' OR o.phase = 'observing'")
          .event("noted")
          .toStatement();

  /** A write counted as applied on either of two conditions of the row as it began: an OR. */
  private static final SqlStatement NOTE_COUNTED_EITHER_WAY =
      FencedWrite.named("note_counted_either_way")
          .action(NextAction.OBSERVE)
          .args("details jsonb", "note text")
          .set("failure_reason = a.note, updated_at = clock_timestamp()")
          .permittedWhen("o.phase = 'observing'")
          .event("noted")
          .appliedOnlyIf("cur.phase = 'delivering' OR cur.phase = 'observing'")
          .toStatement();

  private FenceOutcome write(SqlStatement statement, Lease lease) {
    return FencedWrite.write(
        sql,
        statement,
        lease,
        p ->
            p.json("{\"by\": \"" + lease.owner() + "\"}") // transitions.details
                .text("noted by " + lease.owner())); // failure_reason
  }

  /** Claimed by {@code stale}, expired, then claimed by another worker: {@code stale}'s lease. */
  private Lease overtaken() {
    Lease stale = fixtures.claim(OP, "worker-stale", NextAction.OBSERVE);
    fixtures.expireLease(OP);
    fixtures.claim(OP, "worker-now", NextAction.OBSERVE);
    return stale;
  }

  private void assertNothingWritten(FenceOutcome outcome) {
    assertThat(outcome.applied()).as("rows applied").isZero();
    assertThat(outcome.fenced()).as("fence held").isFalse();
    for (String id : List.of(OP, BYSTANDER)) {
      assertThat(ledger.find(id).orElseThrow().failureReason()).as(id).isEmpty();
    }
    assertThat(ledger.history(BYSTANDER)).noneMatch(t -> t.event().equals("noted"));
    assertThat(ledger.history(OP))
        .filteredOn(t -> t.event().equals("noted"))
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.accepted()).isFalse();
              assertThat(t.detailsJson()).contains("\"denied\": \"lease\"");
            });
  }

  @Test
  void a_stale_owner_writes_nothing_through_a_condition_with_an_or() {
    Lease stale = overtaken();
    long revision = ledger.find(OP).orElseThrow().revision();

    // The stale owner under the row's current revision: only the owner is wrong.
    FenceOutcome outcome =
        write(
            NOTE_EITHER_PHASE,
            new Lease(OP, stale.owner(), revision, NextAction.OBSERVE, stale.until()));

    assertNothingWritten(outcome);
  }

  @Test
  void a_stale_revision_writes_nothing_through_a_condition_with_an_or() {
    Lease stale = overtaken();
    OperationRow now = ledger.find(OP).orElseThrow();

    // The current owner under the revision it no longer holds.
    FenceOutcome outcome =
        write(
            NOTE_EITHER_PHASE,
            new Lease(
                OP,
                now.leaseOwner().orElseThrow(),
                stale.revision(),
                NextAction.OBSERVE,
                stale.until()));

    assertThat(stale.revision()).isLessThan(now.revision());
    assertNothingWritten(outcome);
  }

  @Test
  void an_expired_lease_writes_nothing_through_a_condition_with_an_or() {
    Lease expired = fixtures.claim(OP, "worker-slow", NextAction.OBSERVE);
    fixtures.expireLease(OP);

    assertNothingWritten(write(NOTE_EITHER_PHASE, expired));
  }

  @Test
  void a_stale_write_is_never_logged_as_applied_through_a_count_condition_with_an_or() {
    assertNothingWritten(write(NOTE_COUNTED_EITHER_WAY, overtaken()));
  }

  @Test
  void a_live_lease_writes_its_own_row_and_only_it_through_a_condition_with_an_or() {
    Lease lease = fixtures.claim(OP, "worker-now", NextAction.OBSERVE);

    FenceOutcome outcome = write(NOTE_EITHER_PHASE, lease);

    assertThat(outcome.applied()).isEqualTo(1);
    assertThat(ledger.find(OP).orElseThrow().failureReason()).contains("noted by worker-now");
    assertThat(ledger.find(BYSTANDER).orElseThrow().failureReason()).isEmpty();
    assertThat(ledger.history(OP))
        .filteredOn(t -> t.event().equals("noted"))
        .singleElement()
        .satisfies(t -> assertThat(t.accepted()).isTrue());
    assertThat(ledger.history(BYSTANDER)).noneMatch(t -> t.event().equals("noted"));
  }

  /** White space of any length as one space: the statement as PostgreSQL parses it. */
  private static String flat(String sql) {
    return sql.replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")").trim();
  }

  private static int count(String text, String part) {
    int found = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      found++;
    }
    return found;
  }

  /** The text of CTE {@code name}, up to the next CTE or the final SELECT. */
  private static String cte(String sql, String name) {
    Matcher m =
        Pattern.compile(name + " AS \\((.*?)\\),? (?:[a-z]+ AS \\(|SELECT \\(SELECT)")
            .matcher(flat(sql));
    assertThat(m.find()).as("CTE " + name).isTrue();
    return m.group(1);
  }

  @Test
  void every_fenced_write_of_the_ledger_binds_as_many_parameters_as_it_declares() {
    for (SqlStatement statement :
        List.of(
            DispatchWrites.MARK_SUBMITTING,
            DispatchWrites.RECORD_ACCEPTED,
            DispatchWrites.RECORD_NOT_SENT,
            DispatchWrites.RECORD_REFUSED,
            RemoteJobWrites.RECORD_SNAPSHOT,
            RemoteJobWrites.RECORD_DELIVERED,
            ReviewWrites.OPEN_REVIEW,
            ReviewWrites.RESOLVE_REVIEW,
            LifecycleWrites.CANCEL)) {
      String sql = flat(statement.sql());
      assertThat(count(sql, "?"))
          .as(statement.name())
          .isEqualTo(count(cte(statement.sql(), "args"), "?"))
          .isGreaterThanOrEqualTo(4);
      assertThat(count(sql, "AND o.lease_until > clock_timestamp()"))
          .as(statement.name() + ": the fence in cur and in upd")
          .isEqualTo(2);
    }
  }

  @Test
  void an_incomplete_write_is_refused_when_it_is_built() {
    assertThatThrownBy(
            () ->
                FencedWrite.named("no_details")
                    .action(NextAction.DISPATCH)
                    .args("detail text")
                    .set("phase = 'pending'")
                    .permittedWhen("o.phase = 'submitting'")
                    .event("not_sent")
                    .toStatement())
        .hasMessageContaining("details jsonb");
    assertThatThrownBy(
            () ->
                FencedWrite.named("no_action")
                    .args("details jsonb")
                    .set("phase = 'pending'")
                    .permittedWhen("o.phase = 'submitting'")
                    .event("not_sent")
                    .toStatement())
        .hasMessageContaining("no action");
    assertThatThrownBy(
            () -> FencedWrite.named("twice").action(NextAction.DISPATCH).actionOfTheLease())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> FencedWrite.named("bad").args("details"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FencedWrite.named("bad").event("it's"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
