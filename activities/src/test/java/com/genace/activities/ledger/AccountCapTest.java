package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An account's cap on renders in flight, held across the fleet: workers on their own connections,
 * each with its own ledger, race to mark the account's operations submitting; no more than the cap
 * ever get there, and a render that ends lets the next one in.
 */
class AccountCapTest {

  private static final int WORKERS = 4;
  private static final int OPERATIONS = 12;
  private static final int CAP = 3;

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final OperationsLedger ledger = fixtures.ledger();

  private void pending(String operationId, String account) {
    assertThat(
            ledger.create(
                new NewOperation(operationId, "image-v1", "{\"prompt\":\"a fox\"}", account)))
        .isTrue();
  }

  private long inFlight(String account) {
    return ledger.accounts().list().stream()
        .filter(a -> a.account().equals(account))
        .findFirst()
        .orElseThrow()
        .inFlight();
  }

  /** Every operation of {@code ids} tried once by each worker, all at once: the leases marked. */
  private List<Lease> race(List<String> ids) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<Lease>>> futures = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        // A ledger of its own per worker: its own connections, its own cache of the caps.
        OperationsLedger own = new OperationsLedger(fixtures.dataSource());
        String owner = "worker-" + w;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  List<Lease> marked = new ArrayList<>();
                  for (String id : ids) {
                    if (own.claimToPost(id, owner) instanceof ClaimResult.Acquired acquired) {
                      OperationsLedger.CapCheck check =
                          own.markSubmittingWithinCap(acquired.lease(), acquired.account());
                      if (check.written() == WriteResult.APPLIED) {
                        marked.add(acquired.lease());
                      } else {
                        assertThat(check.atCap()).isPresent();
                        own.release(acquired.lease());
                      }
                    }
                  }
                  return marked;
                }));
      }
      start.countDown();
      List<Lease> marked = new ArrayList<>();
      for (Future<List<Lease>> future : futures) {
        marked.addAll(future.get(60, TimeUnit.SECONDS));
      }
      return marked;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void workers_racing_on_their_own_connections_never_exceed_the_cap() throws Exception {
    List<String> big = new ArrayList<>();
    for (int i = 0; i < OPERATIONS; i++) {
      big.add("big-" + i);
      pending("big-" + i, "big");
    }
    pending("small-0", "small");
    ledger.accounts().setCap("big", OptionalInt.of(CAP), "ops");

    List<Lease> first = race(big);
    assertThat(first.stream().map(l -> l.operationId()))
        .as("marked submitting in the first race")
        .hasSize(CAP)
        .doesNotHaveDuplicates();
    assertThat(inFlight("big")).isEqualTo(CAP);
    assertThat(big.stream().filter(id -> ledger.get(id).phase() == Phase.PENDING))
        .as("the others wait, pending and unleased")
        .hasSize(OPERATIONS - CAP)
        .allSatisfy(id -> assertThat(ledger.get(id).leaseOwner()).isEmpty());

    // Another account is not held by big's cap.
    Lease small = fixtures.claim("small-0", "worker-x", NextAction.DISPATCH);
    assertThat(ledger.markSubmittingWithinCap(small, "small").written())
        .isEqualTo(WriteResult.APPLIED);

    // One of big's renders ends (Genace refused it): exactly one more gets in.
    assertThat(ledger.recordRefused(first.get(0), "refused")).isEqualTo(WriteResult.APPLIED);
    List<String> marked = first.stream().map(l -> l.operationId()).toList();
    List<Lease> second = race(big.stream().filter(id -> !marked.contains(id)).toList());
    assertThat(second).hasSize(1);
    assertThat(inFlight("big")).isEqualTo(CAP);
  }

  @Test
  void caps_are_listed_taken_off_and_refused_when_negative() {
    pending("op-1", "shop");
    ledger.accounts().setCap("shop", OptionalInt.of(2), "alice");

    AccountSettings.Account shop = ledger.accounts().list().get(0);
    assertThat(shop.account()).isEqualTo("shop");
    assertThat(shop.maxInFlight()).isEqualTo(OptionalInt.of(2));
    assertThat(shop.inFlight()).isZero();
    assertThat(shop.updatedBy()).contains("alice");
    assertThat(ledger.accounts().restrictions().current().capped("shop")).isTrue();

    ledger.accounts().setCap("shop", OptionalInt.empty(), "bob");
    assertThat(ledger.accounts().list().get(0).maxInFlight()).isEmpty();
    assertThat(ledger.accounts().list().get(0).updatedBy()).contains("bob");
    assertThat(ledger.accounts().restrictions().current().none()).isTrue();

    assertThat(ledger.accounts().known("shop")).isTrue();
    assertThat(ledger.accounts().known("nobody")).isFalse();
    assertThatThrownBy(() -> ledger.accounts().setCap("shop", OptionalInt.of(-1), "eve"))
        .hasMessageContaining("0 or more");
    assertThat(ledger.accounts().list().get(0).updatedBy()).as("nothing written").contains("bob");
  }
}
