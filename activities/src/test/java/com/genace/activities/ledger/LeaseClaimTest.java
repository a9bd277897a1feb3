package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Claiming a lease, against a real PostgreSQL: wall-clock expiry inside a transaction, missing or
 * blank remote ids, the wrong action, live and released leases, takeover of a dispatch that may
 * have sent its POST, and the same owner claiming again.
 */
class LeaseClaimTest {

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final DataSource dataSource = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  @Test
  void claim_inside_a_transaction_sees_a_lease_expire_by_wall_time() throws Exception {
    fixtures.observing("op-1", "gen_1");
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.execute(
            "UPDATE app_generation_operations SET lease_owner = 'old-worker',"
                + " lease_until = now() + interval '300 milliseconds' WHERE operation_id = 'op-1'");
        statement.execute("SELECT pg_sleep(0.6)");
        // now() is still the transaction start, so by CURRENT_TIMESTAMP the lease looks live...
        try (ResultSet rs =
            statement.executeQuery(
                "SELECT lease_until > CURRENT_TIMESTAMP FROM app_generation_operations"
                    + " WHERE operation_id = 'op-1'")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getBoolean(1)).isTrue();
        }
      }
      // ...but the ledger's claim statement, run in that same transaction, uses wall time.
      try (PreparedStatement claim = connection.prepareStatement(Claims.CLAIM.sql())) {
        claim.setString(1, "op-1");
        claim.setString(2, "new-worker");
        claim.setString(3, "observe");
        claim.setString(4, "45 seconds");
        try (ResultSet rs = claim.executeQuery()) {
          assertThat(rs.next()).as("claim acquired the expired lease").isTrue();
          assertThat(rs.getString("remote_job_id")).isEqualTo("gen_1");
          assertThat(rs.getLong("revision")).isEqualTo(2);
        }
      }
      connection.commit();
    }
    assertThat(ledger.get("op-1").leaseOwner()).contains("new-worker");
  }

  @Test
  void observe_claim_with_a_missing_remote_id_goes_to_review_not_observation() {
    fixtures.observing("op-1", "gen_1");
    fixtures.execute(
        "UPDATE app_generation_operations SET remote_job_id = NULL WHERE operation_id = ?", "op-1");

    ClaimResult result = ledger.claim("op-1", "worker-b", NextAction.OBSERVE);

    assertThat(result).isEqualTo(new ClaimResult.MovedToReview("missing_remote_job_id", 2));
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(row.nextAction()).isEqualTo(NextAction.RECONCILE);
    assertThat(row.leaseOwner()).isEmpty();
  }

  @Test
  void observe_claim_with_a_blank_remote_id_goes_to_review_not_observation() {
    fixtures.observing("op-1", "gen_1");
    fixtures.execute(
        "UPDATE app_generation_operations SET remote_job_id = '   ' WHERE operation_id = ?",
        "op-1");

    assertThat(ledger.claim("op-1", "worker-b", NextAction.OBSERVE))
        .isInstanceOf(ClaimResult.MovedToReview.class);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.IN_REVIEW);
  }

  @Test
  void claim_for_the_wrong_action_acquires_nothing_and_changes_nothing() {
    fixtures.pending("op-1");

    ClaimResult result = ledger.claim("op-1", "worker-a", NextAction.OBSERVE);

    assertThat(result).isInstanceOf(ClaimResult.NotAcquired.class);
    assertThat(((ClaimResult.NotAcquired) result).reason())
        .isEqualTo(ClaimResult.Reason.NOT_ELIGIBLE);
    OperationRow row = ledger.get("op-1");
    assertThat(row.revision()).isZero();
    assertThat(row.leaseOwner()).isEmpty();
    assertThat(row.phase()).isEqualTo(Phase.PENDING);
  }

  @Test
  void claim_of_a_live_lease_is_refused_until_it_expires() {
    fixtures.observing("op-1", "gen_1");
    Lease first = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    ClaimResult second = ledger.claim("op-1", "worker-b", NextAction.OBSERVE);
    assertThat(second).isInstanceOf(ClaimResult.NotAcquired.class);
    assertThat(((ClaimResult.NotAcquired) second).reason()).isEqualTo(ClaimResult.Reason.LEASED);

    fixtures.expireLease("op-1");
    Lease third = fixtures.claim("op-1", "worker-b", NextAction.OBSERVE);
    assertThat(third.revision()).isEqualTo(first.revision() + 1);
  }

  @Test
  void dispatch_claim_never_makes_a_submitting_operation_dispatchable_again() {
    Lease original = fixtures.submitting("op-1");
    fixtures.expireLease("op-1");

    ClaimResult takeover = ledger.claim("op-1", "worker-b", NextAction.DISPATCH);

    assertThat(takeover)
        .isEqualTo(new ClaimResult.MovedToReview("dispatch_interrupted", original.revision() + 1));
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(row.dispatchOutcome()).contains("unknown");
    // A second claim finds nothing to dispatch.
    assertThat(ledger.claim("op-1", "worker-c", NextAction.DISPATCH))
        .isInstanceOf(ClaimResult.NotAcquired.class);
  }

  @Test
  void a_live_submitting_lease_is_neither_taken_over_nor_moved_to_review() {
    fixtures.submitting("op-1");

    ClaimResult result = ledger.claim("op-1", "worker-b", NextAction.DISPATCH);

    assertThat(result).isInstanceOf(ClaimResult.NotAcquired.class);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.SUBMITTING);
  }

  @Test
  void released_lease_can_be_claimed_at_once_under_a_new_revision() {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    assertThat(ledger.release(lease)).isEqualTo(WriteResult.APPLIED);

    Lease next = fixtures.claim("op-1", "worker-b", NextAction.OBSERVE);
    assertThat(next.revision()).isEqualTo(lease.revision() + 1);
    assertThat(ledger.release(lease)).isEqualTo(WriteResult.DENIED);
  }

  @Test
  void claims_renewals_and_releases_change_no_state_and_leave_no_history_row() {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);
    assertThat(ledger.renew(lease)).isInstanceOf(RenewResult.Renewed.class);
    assertThat(ledger.release(lease)).isEqualTo(WriteResult.APPLIED);

    assertThat(ledger.history("op-1"))
        .extracting(TransitionRow::event)
        .containsExactly("created", "submitting", "accepted");
  }

  @Test
  void a_claim_is_not_blocked_by_the_same_owners_live_lease_and_fences_its_older_revision() {
    fixtures.observing("op-1", "gen_1");
    Lease first = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    Lease second = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);

    assertThat(second.revision()).isEqualTo(first.revision() + 1);
    assertThat(ledger.renew(first)).isInstanceOf(RenewResult.Denied.class);
    assertThat(ledger.recordSnapshot(first, RemoteStatus.RUNNING, "{\"s\":\"running\"}", null))
        .isEqualTo(WriteResult.DENIED);
    assertThat(ledger.get("op-1").remoteStatus()).isEmpty();
    assertThat(ledger.recordSnapshot(second, RemoteStatus.RUNNING, "{\"s\":\"running\"}", null))
        .isEqualTo(WriteResult.APPLIED);
    // Another owner is still kept out by the live lease.
    ClaimResult other = ledger.claim("op-1", "worker-b", NextAction.OBSERVE);
    assertThat(other).isInstanceOf(ClaimResult.NotAcquired.class);
    assertThat(((ClaimResult.NotAcquired) other).reason()).isEqualTo(ClaimResult.Reason.LEASED);
  }

  @Test
  void the_same_owner_waits_out_its_own_submitting_lease_so_a_late_answer_is_kept() {
    Lease sending = fixtures.submitting("op-1");

    ClaimResult again = ledger.claim("op-1", LedgerFixtures.WORKER, NextAction.DISPATCH);

    assertThat(((ClaimResult.NotAcquired) again).reason()).isEqualTo(ClaimResult.Reason.LEASED);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.SUBMITTING);
    assertThat(ledger.recordAccepted(sending, "gen_late")).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.get("op-1").remoteJobId()).contains("gen_late");
  }

  @Test
  void a_dispatch_claim_returns_what_the_post_needs() {
    assertThat(
            ledger.create(new NewOperation("op-1", "image-v1", "{\"prompt\": \"a fox\"}", "acme")))
        .isTrue();

    ClaimResult.Acquired claim =
        (ClaimResult.Acquired) ledger.claim("op-1", "worker-a", NextAction.DISPATCH);

    assertThat(claim.model()).isEqualTo("image-v1");
    assertThat(claim.account()).isEqualTo("acme");
    assertThat(claim.requestJson()).contains("{\"prompt\": \"a fox\"}");
    assertThat(claim.remoteJobId()).isEmpty();
  }

  @Test
  void claim_to_submit_takes_the_dispatch_lease_and_commits_submitting_in_one_write() {
    fixtures.pending("op-1");

    ClaimResult.Acquired claim = (ClaimResult.Acquired) ledger.claimToSubmit("op-1", "worker-a");

    assertThat(claim.lease().action()).isEqualTo(NextAction.DISPATCH);
    assertThat(claim.requestJson()).contains("{\"prompt\": \"a fox\"}");
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.SUBMITTING);
    assertThat(row.submittingSince()).isPresent();
    assertThat(row.dispatchAttempts()).isEqualTo(1);
    assertThat(ledger.history("op-1"))
        .extracting(TransitionRow::event, TransitionRow::revision)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("created", 0L),
            org.assertj.core.groups.Tuple.tuple("submitting", claim.lease().revision()));
    // Another dispatcher is kept out while the lease lives, and diverted to review after.
    assertThat(((ClaimResult.NotAcquired) ledger.claimToSubmit("op-1", "worker-b")).reason())
        .isEqualTo(ClaimResult.Reason.LEASED);
    fixtures.expireLease("op-1");
    assertThat(ledger.claimToSubmit("op-1", "worker-b"))
        .isEqualTo(
            new ClaimResult.MovedToReview("dispatch_interrupted", claim.lease().revision() + 1));
    assertThat(ledger.recordAccepted(claim.lease(), "gen_late")).isEqualTo(WriteResult.DENIED);
  }

  @Test
  void claim_to_submit_refuses_an_operation_that_is_not_pending() {
    fixtures.observing("op-1", "gen_1");

    ClaimResult result = ledger.claimToSubmit("op-1", "worker-a");

    assertThat(((ClaimResult.NotAcquired) result).reason())
        .isEqualTo(ClaimResult.Reason.NOT_ELIGIBLE);
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.OBSERVING);
  }

  @Test
  void a_refused_claim_says_whether_another_owners_lease_is_live() {
    fixtures.observing("op-1", "gen_1");
    // A lease that is live by the database's clock, whatever this process's clock says.
    fixtures.execute(
        "UPDATE app_generation_operations SET lease_owner = 'worker-a',"
            + " lease_until = clock_timestamp() + interval '1 hour' WHERE operation_id = ?",
        "op-1");
    assertThat(
            ((ClaimResult.NotAcquired) ledger.claim("op-1", "worker-b", NextAction.OBSERVE))
                .reason())
        .isEqualTo(ClaimResult.Reason.LEASED);
    assertThat(
            ((ClaimResult.NotAcquired) ledger.claim("op-1", "worker-b", NextAction.DELIVER))
                .reason())
        .isEqualTo(ClaimResult.Reason.NOT_ELIGIBLE);
  }

  @Test
  void claims_of_unknown_operations_and_bad_arguments_are_refused_clearly() {
    assertThatThrownBy(() -> ledger.claim("missing", "worker-a", NextAction.OBSERVE))
        .isInstanceOf(UnknownOperationException.class)
        .hasMessage("unknown operation 'missing'");
    fixtures.pending("op-1");
    assertThatThrownBy(() -> ledger.claim("op-1", " ", NextAction.DISPATCH))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lease owner must not be blank");
    assertThatThrownBy(() -> ledger.claim("op-1", "worker-a", NextAction.NONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("action must be one of");
    assertThatThrownBy(() -> ledger.claim("", "worker-a", NextAction.DISPATCH))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("operation id must not be blank");
    assertThatThrownBy(() -> NextAction.parse("poll"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown action 'poll'");
    assertThat(ledger.get("op-1").revision()).isZero();
  }
}
