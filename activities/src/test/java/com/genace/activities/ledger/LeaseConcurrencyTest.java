package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real overlap: several connections racing on the same rows, and blocked row locks. */
class LeaseConcurrencyTest {

  private static final int CONTENDERS = 10;

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final DataSource dataSource = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  @Test
  void many_connections_claiming_at_once_yield_exactly_one_owner_per_lease_window()
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CONTENDERS);
    try {
      for (int round = 0; round < 10; round++) {
        String id = "op-" + round;
        fixtures.observing(id, "gen_" + round);
        for (int window = 0; window < 2; window++) {
          List<ClaimResult> results = race(pool, id);
          List<Lease> winners =
              results.stream()
                  .filter(ClaimResult.Acquired.class::isInstance)
                  .map(r -> ((ClaimResult.Acquired) r).lease())
                  .toList();
          assertThat(winners).as("winners in window %d of %s", window, id).hasSize(1);
          assertThat(winners.get(0).revision()).isEqualTo(2 + window);
          assertThat(results)
              .filteredOn(ClaimResult.NotAcquired.class::isInstance)
              .hasSize(CONTENDERS - 1);
          assertThat(ledger.get(id).leaseOwner()).contains(winners.get(0).owner());
          fixtures.expireLease(id);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private List<ClaimResult> race(ExecutorService pool, String id) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<ClaimResult>> futures = new ArrayList<>();
    for (int i = 0; i < CONTENDERS; i++) {
      String owner = "worker-" + i;
      futures.add(
          pool.submit(
              () -> {
                start.await();
                return ledger.claim(id, owner, NextAction.OBSERVE);
              }));
    }
    start.countDown();
    List<ClaimResult> results = new ArrayList<>();
    for (Future<ClaimResult> future : futures) {
      results.add(future.get());
    }
    return results;
  }

  @Test
  void a_claim_blocked_by_a_held_row_lock_fails_fast_with_a_clear_error() throws Exception {
    fixtures.observing("op-1", "gen_1");
    try (Database impatient =
            Database.open(
                DatabaseConfig.of(TestDatabase.url()).withLockTimeout(Duration.ofMillis(200)));
        Connection holder = dataSource.getConnection()) {
      OperationsLedger contended = new OperationsLedger(impatient.dataSource());
      holder.setAutoCommit(false);
      try (Statement statement = holder.createStatement()) {
        statement.execute(
            "SELECT 1 FROM app_generation_operations WHERE operation_id = 'op-1' FOR UPDATE");
      }

      assertTimeoutPreemptively(
          Duration.ofSeconds(30),
          () ->
              assertThatThrownBy(() -> contended.claim("op-1", "worker-b", NextAction.OBSERVE))
                  .isInstanceOf(LedgerContentionException.class)
                  .hasMessageContaining("gave up waiting")
                  .hasMessageContaining("lock"));
      holder.rollback();
    }
    assertThat(ledger.get("op-1").leaseOwner()).isEmpty();
  }

  @Test
  void a_renewal_whose_response_is_lost_reports_uncertain_ownership() throws Exception {
    fixtures.observing("op-1", "gen_1");
    Lease lease = fixtures.claim("op-1", "worker-a", NextAction.OBSERVE);
    try (Connection holder = dataSource.getConnection()) {
      holder.setAutoCommit(false);
      try (Statement statement = holder.createStatement()) {
        statement.execute(
            "SELECT 1 FROM app_generation_operations WHERE operation_id = 'op-1' FOR UPDATE");
      }
      CompletableFuture<RenewResult> renewal =
          CompletableFuture.supplyAsync(() -> ledger.renew(lease));
      // Cut the renewing session while its statement waits: the worker never hears back.
      terminateBackendWaitingOnLock();
      holder.rollback();

      RenewResult result = renewal.get();
      assertThat(result).isInstanceOf(RenewResult.Uncertain.class);
      assertThat(((RenewResult.Uncertain) result).cause()).doesNotContain("password");
    }
    // The worker stops writing; a fresh claim after expiry resolves ownership under a new revision.
    fixtures.expireLease("op-1");
    assertThat(fixtures.claim("op-1", "worker-a", NextAction.OBSERVE).revision())
        .isEqualTo(lease.revision() + 1);
  }

  private void terminateBackendWaitingOnLock() throws Exception {
    try (Connection admin = dataSource.getConnection();
        PreparedStatement find =
            admin.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE '%SET lease_until = clock_timestamp() +%'")) {
      for (int attempt = 0; attempt < 500; attempt++) {
        try (ResultSet rs = find.executeQuery()) {
          if (rs.next()) {
            try (PreparedStatement kill =
                admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
              kill.setInt(1, rs.getInt(1));
              kill.execute();
              return;
            }
          }
        }
        Thread.sleep(20);
      }
      throw new AssertionError("the renewal never waited on the row lock");
    }
  }
}
