package com.genace.activities.db.support;

import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.RenewResult;
import com.genace.client.model.NextAction;
import com.genace.workflows.model.RemoteStatus;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The ledger's hot statements from several clients at once, each on its own pooled connection with
 * the workers' lock timeout: {@code bench ledger}'s cycle (LedgerBench: claim to observe, renew, a
 * snapshot, release) on each client's own operations, and every eighth turn a dispatch (create,
 * claim to submit, reserve with a limited allowance, accepted, settled). Every failure is kept with
 * its SQLSTATE; the clients go on after one.
 */
public final class HotLoad implements AutoCloseable {

  public static final int OPERATIONS_PER_CLIENT = 16;

  /** Limited, so that every reservation locks its counters, and never reached. */
  private static final AllowancePolicy POLICY =
      new AllowancePolicy(
          Duration.ofHours(1), 1_000_000_000L, 1_000_000_000L, 1_000_000, 1_000_000, Map.of(), 1);

  private final OperationsLedger ledger;
  private final DispatchAllowance allowance;
  private final ExecutorService clients;
  private final AtomicLong cycles = new AtomicLong();
  private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
  private volatile boolean stopping;

  private HotLoad(DataSource dataSource, int clients) {
    this.ledger = new OperationsLedger(dataSource);
    this.allowance = new DispatchAllowance(dataSource, POLICY);
    this.clients = Executors.newFixedThreadPool(clients);
  }

  /** Prepares each client's operations, then runs until closed. */
  public static HotLoad start(DataSource dataSource, int clients) {
    HotLoad load = new HotLoad(dataSource, clients);
    for (int client = 0; client < clients; client++) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < OPERATIONS_PER_CLIENT; i++) {
        ids.add(load.observing("hot-c" + client + "-" + i));
      }
      int id = client;
      load.clients.submit(() -> load.run(id, ids));
    }
    return load;
  }

  /** Cycles completed so far, by all clients. */
  public long cycles() {
    return cycles.get();
  }

  /** Each failed statement: exception, SQLSTATE and message. */
  public List<String> failures() {
    return List.copyOf(failures);
  }

  private void run(int client, List<String> ids) {
    String owner = "hot-client-" + client;
    for (long i = 0; !stopping; i++) {
      try {
        observe(ids.get((int) (i % ids.size())), owner);
        if (i % 8 == 0) {
          dispatch("hot-c" + client + "-d" + i, owner);
        }
        cycles.incrementAndGet();
      } catch (RuntimeException e) {
        failures.add(e.getClass().getSimpleName() + " " + sqlState(e) + ": " + e.getMessage());
      }
    }
  }

  private void observe(String id, String owner) {
    Lease lease = acquired(ledger.claim(id, owner, NextAction.OBSERVE));
    if (!(ledger.renew(lease) instanceof RenewResult.Renewed)) {
      throw new IllegalStateException("the lease on " + id + " was not renewed");
    }
    ledger.recordSnapshot(
        lease, RemoteStatus.RUNNING, "{\"id\":\"gen_" + id + "\",\"status\":\"running\"}", null);
    ledger.release(lease);
  }

  private void dispatch(String id, String owner) {
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"hot\"}"));
    Lease lease = acquired(ledger.claimToSubmit(id, owner));
    if (!allowance.reserve(id, "default", "image-v1").granted()) {
      throw new IllegalStateException("the allowance refused " + id);
    }
    ledger.recordAccepted(lease, "gen_" + id);
    allowance.settle(id, true);
  }

  private String observing(String id) {
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"hot\"}"));
    Lease lease = acquired(ledger.claim(id, "hot-setup", NextAction.DISPATCH));
    ledger.markSubmitting(lease);
    ledger.recordAccepted(lease, "gen_" + id);
    return id;
  }

  private static Lease acquired(ClaimResult claim) {
    if (claim instanceof ClaimResult.Acquired acquired) {
      return acquired.lease();
    }
    throw new IllegalStateException("could not claim: " + claim);
  }

  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql.getSQLState();
      }
    }
    return "-";
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    clients.shutdown();
    if (!clients.awaitTermination(30, TimeUnit.SECONDS)) {
      clients.shutdownNow();
      throw new IllegalStateException("a hot load client did not stop");
    }
  }
}
