package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.lifecycle.CancelRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A dispatch claim racing a cancel request, each on its own connection to a real PostgreSQL: a
 * claim that comes after the accepted cancel is refused (nothing can be sent), and a cancel that
 * comes after the claim leaves the claimed POST to its outcome, as for any cancel of a POST in
 * flight. Never a claim that succeeds after the cancel was accepted.
 */
class CancelRequestRaceTest {

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh(Duration.ofSeconds(30));

  private final DataSource dataSource = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();
  private final ExecutorService threads = Executors.newFixedThreadPool(2);

  /** Runs the request-cancel statement in a transaction left open: it holds the row's lock. */
  private Connection cancelHeldOpen(String operationId) throws SQLException {
    Connection connection = dataSource.getConnection();
    connection.setAutoCommit(false);
    try (PreparedStatement cancel =
        connection.prepareStatement(LifecycleWrites.REQUEST_CANCEL.sql())) {
      cancel.setString(1, operationId);
      cancel.setString(2, "shop");
      cancel.setString(3, "customer left");
      cancel.setNull(4, java.sql.Types.BOOLEAN);
      try (ResultSet rs = cancel.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong("recorded")).isEqualTo(1);
      }
    }
    return connection;
  }

  /** Runs the claim-to-submit statement in a transaction left open: it holds the row's lock. */
  private Connection claimHeldOpen(String operationId) throws SQLException {
    Connection connection = dataSource.getConnection();
    connection.setAutoCommit(false);
    try (PreparedStatement claim = connection.prepareStatement(Claims.CLAIM_TO_SUBMIT.sql())) {
      claim.setString(1, operationId);
      claim.setString(2, "worker-a");
      claim.setString(3, "30 seconds");
      try (ResultSet rs = claim.executeQuery()) {
        assertThat(rs.next()).as("worker-a claimed").isTrue();
      }
    }
    return connection;
  }

  /** Waits until another session waits for a row lock (the racing statement is blocked). */
  private void awaitBlockedOnTheRow() {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              try (Connection c = dataSource.getConnection();
                  PreparedStatement s =
                      c.prepareStatement(
                          "SELECT count(*) FROM pg_stat_activity"
                              + " WHERE wait_event_type = 'Lock' AND datname = current_database()");
                  ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
              }
            });
  }

  @Test
  void a_claim_that_waited_for_an_accepted_cancel_is_refused_and_nothing_is_sent()
      throws Exception {
    fixtures.pending("op-1");
    fixtures.pending("op-2");

    for (String operationId : List.of("op-1", "op-2")) {
      Future<ClaimResult> claim;
      try (Connection cancel = cancelHeldOpen(operationId)) {
        // op-1 by the claim that marks submitting at once; op-2 by the claim that a limited
        // allowance takes before it marks submitting.
        claim =
            threads.submit(
                () ->
                    operationId.equals("op-1")
                        ? ledger.claimToSubmit(operationId, "worker-b")
                        : ledger.claimToPost(operationId, "worker-b"));
        awaitBlockedOnTheRow();
        cancel.commit();
      }

      ClaimResult result = claim.get(10, TimeUnit.SECONDS);
      assertThat(result).isInstanceOf(ClaimResult.NotAcquired.class);
      OperationRow row = ledger.get(operationId);
      assertThat(row.phase()).isEqualTo(Phase.PENDING);
      assertThat(row.leaseOwner()).isEmpty();
      assertThat(row.dispatchAttempts()).isZero();
      assertThat(row.cancelRequest())
          .hasValueSatisfying(
              r -> assertThat(r.describe()).isEqualTo("cancelled by shop: customer left"));
    }
  }

  @Test
  void a_cancel_that_waited_for_a_claim_leaves_the_post_in_flight_to_record_its_outcome()
      throws Exception {
    fixtures.pending("op-1");

    Future<CancelRecord> cancel;
    try (Connection claim = claimHeldOpen("op-1")) {
      cancel = threads.submit(() -> ledger.requestCancel("op-1", "shop", "customer left", null));
      awaitBlockedOnTheRow();
      claim.commit();
    }

    assertThat(cancel.get(10, TimeUnit.SECONDS)).isEqualTo(CancelRecord.RECORDED);
    OperationRow row = ledger.get("op-1");
    assertThat(row.phase()).isEqualTo(Phase.SUBMITTING);
    assertThat(row.leaseOwner()).contains("worker-a");
    assertThat(row.cancelRequestedBy()).contains("shop");
    // The cancel took no revision: the claimed POST's outcome is still recorded under its lease.
    Lease lease =
        new Lease("op-1", "worker-a", row.revision(), NextAction.DISPATCH, row.leaseUntil().get());
    assertThat(ledger.recordAccepted(lease, "gen_1")).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.get("op-1").remoteJobId()).contains("gen_1");
    // And nothing claims it for another POST.
    assertThat(ledger.claimToSubmit("op-1", "worker-b"))
        .isInstanceOf(ClaimResult.NotAcquired.class);
  }

  @Test
  void racing_claims_and_cancels_never_let_a_claim_succeed_after_the_cancel() throws Exception {
    int operations = 40;
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < operations; i++) {
      ids.add("op-race-" + i);
      fixtures.pending(ids.get(i));
    }
    int claimed = 0;
    int refused = 0;
    for (String id : ids) {
      CyclicBarrier start = new CyclicBarrier(2);
      CompletableFuture<ClaimResult> claim =
          CompletableFuture.supplyAsync(
              () -> {
                awaitTogether(start);
                return ledger.claimToSubmit(id, "worker-b");
              },
              threads);
      CompletableFuture<CancelRecord> cancel =
          CompletableFuture.supplyAsync(
              () -> {
                awaitTogether(start);
                return ledger.requestCancel(id, "shop", "customer left", null);
              },
              threads);

      ClaimResult claimResult = claim.get(10, TimeUnit.SECONDS);
      assertThat(cancel.get(10, TimeUnit.SECONDS)).isEqualTo(CancelRecord.RECORDED);
      OperationRow row = ledger.get(id);
      if (claimResult instanceof ClaimResult.Acquired) {
        claimed++;
        // The claim committed first: the cancel's time is after the claim's.
        assertThat(row.phase()).isEqualTo(Phase.SUBMITTING);
        assertThat(row.cancelRequestedAt().orElseThrow())
            .isAfterOrEqualTo(row.submittingSince().orElseThrow());
      } else {
        refused++;
        assertThat(row.phase()).isEqualTo(Phase.PENDING);
        assertThat(row.dispatchAttempts()).isZero();
      }
    }
    System.out.println("claim/cancel races: claimed=" + claimed + " refused=" + refused);
    assertThat(claimed + refused).isEqualTo(operations);
  }

  private static void awaitTogether(CyclicBarrier barrier) {
    try {
      barrier.await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
