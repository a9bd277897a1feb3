package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewDecision;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Renewal and fenced writes: only the current, unexpired lease ever writes. */
class LeaseFencingTest {

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final DataSource dataSource = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  @Test
  void renewal_extends_a_live_lease_bound_to_its_owner_and_revision() {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    RenewResult result = ledger.renew(lease);

    assertThat(result).isInstanceOf(RenewResult.Renewed.class);
    Lease renewed = ((RenewResult.Renewed) result).lease();
    assertThat(renewed.revision()).isEqualTo(lease.revision());
    assertThat(renewed.until()).isAfterOrEqualTo(lease.until());
  }

  @Test
  void renewal_after_expiry_is_denied_even_without_a_new_owner() throws Exception {
    OperationsLedger shortLeases = new OperationsLedger(dataSource, Duration.ofMillis(200));
    LedgerFixtures.over(shortLeases, dataSource).observing("op-1", "gen_1");
    Lease lease =
        LedgerFixtures.over(shortLeases, dataSource).claim("op-1", "worker-a", NextAction.OBSERVE);
    Thread.sleep(400);

    assertThat(shortLeases.renew(lease)).isInstanceOf(RenewResult.Denied.class);

    assertThat(ledger.get("op-1").leaseUntil()).contains(lease.until());
    assertThat(ledger.history("op-1"))
        .filteredOn(row -> !row.accepted())
        .singleElement()
        .satisfies(row -> assertThat(row.event()).isEqualTo("renewed"));
  }

  @Test
  void renewal_by_the_wrong_owner_is_denied() {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);
    Lease impostor =
        new Lease(lease.operationId(), "worker-b", lease.revision(), lease.action(), lease.until());

    assertThat(ledger.renew(impostor)).isInstanceOf(RenewResult.Denied.class);
    assertThat(ledger.get("op-1").leaseOwner()).contains("worker-a");
  }

  @Test
  void a_stale_revision_is_denied_even_when_the_owner_string_is_reused() {
    fixtures.observing("op-1", "gen_1");
    Lease stale = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);
    fixtures.expireLease("op-1");
    Lease current = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    assertThat(ledger.renew(stale)).isInstanceOf(RenewResult.Denied.class);
    assertThat(ledger.recordSnapshot(stale, RemoteStatus.RUNNING, "{\"status\":\"running\"}", null))
        .isEqualTo(WriteResult.DENIED);
    assertThat(ledger.get("op-1").remoteStatus()).isEmpty();

    assertThat(
            ledger.recordSnapshot(current, RemoteStatus.RUNNING, "{\"status\":\"running\"}", null))
        .isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.get("op-1").remoteStatus()).contains(RemoteStatus.RUNNING);
  }

  @Test
  void a_denied_write_keeps_a_diagnostic_row_and_leaves_the_operation_row_alone() {
    Lease original = fixtures.submitting("op-1");
    fixtures.expireLease("op-1");
    assertThat(ledger.claim("op-1", "worker-b", NextAction.DISPATCH))
        .isInstanceOf(ClaimResult.MovedToReview.class);
    OperationRow before = ledger.get("op-1");

    // The paused dispatcher wakes up with Genace's answer, too late to own the operation.
    assertThat(ledger.recordAccepted(original, "gen_late")).isEqualTo(WriteResult.DENIED);

    assertThat(ledger.get("op-1")).isEqualTo(before);
    TransitionRow denied = ledger.history("op-1").get(ledger.history("op-1").size() - 1);
    assertThat(denied.accepted()).isFalse();
    assertThat(denied.event()).isEqualTo("accepted");
    assertThat(denied.revision()).isEqualTo(original.revision());
    assertThat(denied.detailsJson()).contains("gen_late").contains("\"denied\": \"lease\"");
  }

  @Test
  void snapshots_only_move_forward_and_a_terminal_one_is_never_replaced() {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    assertThat(ledger.recordSnapshot(lease, RemoteStatus.RUNNING, "{\"s\":\"running\"}", null))
        .isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordSnapshot(lease, RemoteStatus.QUEUED, "{\"s\":\"queued\"}", null))
        .as("a late queued snapshot")
        .isEqualTo(WriteResult.UNCHANGED);
    assertThat(ledger.recordSnapshot(lease, RemoteStatus.RUNNING, "{\"s\":\"running\"}", null))
        .as("the same status again")
        .isEqualTo(WriteResult.UNCHANGED);
    assertThat(ledger.recordSnapshot(lease, RemoteStatus.SUCCEEDED, "{\"s\":\"succeeded\"}", null))
        .isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordSnapshot(lease, RemoteStatus.RUNNING, "{\"s\":\"running\"}", null))
        .as("a late running snapshot after the terminal one")
        .isNotEqualTo(WriteResult.APPLIED);

    OperationRow row = ledger.get("op-1");
    assertThat(row.remoteStatus()).contains(RemoteStatus.SUCCEEDED);
    assertThat(row.phase()).isEqualTo(Phase.DELIVERING);
    assertThat(row.nextAction()).isEqualTo(NextAction.DELIVER);
    assertThat(ledger.history("op-1"))
        .filteredOn(t -> t.event().equals("snapshot") && t.accepted())
        .hasSize(2);
  }

  @Test
  void a_failed_render_ends_the_operation_failed_with_its_reason() {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    ledger.recordSnapshot(lease, RemoteStatus.FAILED, "{\"s\":\"failed\"}", "render_failed");

    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.FAILED);
    assertThat(row.nextAction()).isEqualTo(NextAction.NONE);
    assertThat(row.failureReason()).contains("render_failed");
    assertThat(row.leaseOwner()).isEmpty();
  }

  @Test
  void dispatch_evidence_is_committed_before_the_post_and_acceptance_moves_to_observe() {
    fixtures.pending("op-1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.DISPATCH);

    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    OperationRow submitting = ledger.get("op-1");
    assertThat(submitting.phase()).isEqualTo(Phase.SUBMITTING);
    assertThat(submitting.submittingSince()).isPresent();
    assertThat(submitting.dispatchAttempts()).isEqualTo(1);
    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.UNCHANGED);

    assertThat(ledger.recordAccepted(lease, "gen_1")).isEqualTo(WriteResult.APPLIED);
    OperationRow observing = ledger.get("op-1");
    assertThat(observing.phase()).isEqualTo(Phase.OBSERVING);
    assertThat(observing.remoteJobId()).contains("gen_1");
    assertThat(observing.leaseOwner()).isEmpty();
  }

  @Test
  void not_sent_makes_the_operation_dispatchable_again_and_refused_fails_it() {
    Lease first = fixtures.submitting("op-1");
    assertThat(ledger.recordNotSent(first, "not_sent", "connection refused"))
        .isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.PENDING);

    Lease second = fixtures.claim("op-1", "worker-a", NextAction.DISPATCH);
    ledger.markSubmitting(second);
    assertThat(ledger.recordRefused(second, "402 insufficient credits"))
        .isEqualTo(WriteResult.APPLIED);
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.FAILED);
    assertThat(row.failureReason()).contains("402 insufficient credits");
    assertThat(row.dispatchAttempts()).isEqualTo(2);
  }

  @Test
  void a_review_is_opened_and_resolved_each_way_under_leases() {
    for (ReviewDecision decision : ReviewDecision.values()) {
      String id = "op-" + decision.wire();
      Lease dispatch = fixtures.submitting(id);
      assertThat(ledger.openReview(dispatch, "post_outcome_unknown", "read timed out"))
          .isEqualTo(WriteResult.APPLIED);
      assertThat(ledger.get(id).phase()).isEqualTo(Phase.IN_REVIEW);

      Lease reconcile = fixtures.claim(id, "operator-cli", NextAction.RECONCILE);
      assertThat(
              ledger.resolveReview(
                  reconcile, decision, Optional.of("gen_found"), "alice", "checked the dashboard"))
          .isEqualTo(WriteResult.APPLIED);

      OperationRow row = ledger.get(id);
      assertThat(row.phase()).isEqualTo(decision.nextPhase());
      assertThat(row.reviewResolution()).contains(decision.wire());
      assertThat(row.reviewResolvedBy()).contains("alice");
      assertThat(row.remoteJobId().isPresent())
          .isEqualTo(decision == ReviewDecision.FOUND_REMOTE_JOB);
    }
  }

  @Test
  void resolving_an_operation_that_is_not_in_review_changes_nothing() {
    fixtures.observing("op-1", "gen_1");

    assertThat(ledger.claim("op-1", "operator-cli", NextAction.RECONCILE))
        .isInstanceOf(ClaimResult.NotAcquired.class);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.OBSERVING);
  }

  @Test
  void writes_with_bad_input_are_refused_clearly_and_change_nothing() {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);
    OperationRow before = ledger.get("op-1");

    assertThatThrownBy(() -> ledger.markSubmitting(lease))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("this write needs a dispatch lease, not observe");
    assertThatThrownBy(() -> ledger.recordSnapshot(lease, RemoteStatus.RUNNING, "{oops", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("malformed JSON");
    Lease unknown = new Lease("missing", "worker-a", 1, NextAction.OBSERVE, lease.until());
    assertThatThrownBy(() -> ledger.renew(unknown)).isInstanceOf(UnknownOperationException.class);
    assertThatThrownBy(() -> ledger.create(new NewOperation("op-2", "m", "[1,2]")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected a JSON object");

    assertThat(ledger.get("op-1")).isEqualTo(before);
    assertThat(ledger.find("op-2")).isEmpty();
  }

  @Test
  void create_is_idempotent_by_operation_id() {
    NewOperation op = new NewOperation("op-1", "image-v1", "{\"prompt\":\"a\"}");
    assertThat(ledger.create(op)).isTrue();
    assertThat(ledger.create(new NewOperation("op-1", "other", "{}"))).isFalse();
    assertThat(ledger.get("op-1").model()).isEqualTo("image-v1");
    assertThat(ledger.history("op-1")).hasSize(1);
  }
}
