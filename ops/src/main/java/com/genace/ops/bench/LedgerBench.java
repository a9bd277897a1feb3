package com.genace.ops.bench;

import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.allowance.DispatchAllowance;
import com.genace.activities.db.Database;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.RenewResult;
import com.genace.activities.ledger.WriteResult;
import com.genace.client.model.NextAction;
import com.genace.workflows.model.RemoteStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * {@code bench ledger}: the ledger's lease cycle against a bare claim {@code UPDATE} (the lease
 * rules of docs/ledger.md), the dispatch cycle with a limited allowance against the same without
 * one, then the allowance's reserve on an empty and on a long history.
 *
 * <ol>
 *   <li>Each client gets its own {@value #ROWS_PER_CLIENT} operations in {@code observing} (made
 *       through the public API), copied into a bare table made {@code LIKE} the operations table
 *       {@code INCLUDING ALL} (the same columns, defaults, indexes and fillfactor; no trigger), on
 *       the same pool with the same session settings: only the statements differ.
 *   <li>Ours: {@code claim(observe)} → {@code renew} → {@code recordSnapshot(running)} → {@code
 *       release}, four statements per cycle, through {@link OperationsLedger}.
 *   <li>Bare: the claim {@code UPDATE ... RETURNING} of the lease rules, word for word, with a zero
 *       lease so that the next claim of the row succeeds again: one statement.
 *   <li>Both on the same pool of exactly {@code clients} connections, in A B B A slices ({@link
 *       SideBySide}). {@code ratio} = ours / bare statements per second; the cycles and claims per
 *       second are reported beside.
 *   <li>Dispatch of a new operation whose POST is accepted, all of one account, side by side in the
 *       same A B B A slices. Unlimited: {@code create} → {@code claimToSubmit} → {@code
 *       recordAccepted}, three statements, as a dispatcher with no allowance runs them. Allowance:
 *       {@code create} → {@code claimToPost} → {@code reserve} (a free slice's lock and the
 *       reservation) → {@code markSubmitting} → {@code recordAccepted} → {@code settle} (spent),
 *       seven statements (a reservation that has to lock every slice runs more, which are not
 *       counted: they can only lower its rate), with a policy limited fleet-wide and per account
 *       that the bench never reaches. {@code allowance_ratio} = allowance / unlimited dispatches
 *       per second (their statements per second are reported beside).
 *   <li>Allowance: the median of {@value #RESERVE_SAMPLES} {@code reserve} calls (each settled as
 *       spent) with a finite policy, first before any dispatch of the bench (on the reservations
 *       the database held already, {@code reservations_before_empty}), then after the dispatch
 *       phase and {@value #PAST_RESERVATIONS} past reservations spread over the last week ({@code
 *       reservations_before_100k}); each timing on vacuumed, analyzed tables.
 * </ol>
 *
 * Writes only rows whose ids start with a per-run prefix, and deletes them (and its bare table)
 * afterwards.
 */
final class LedgerBench {

  static final int ROWS_PER_CLIENT = 16;
  static final int RESERVE_SAMPLES = 30;
  static final int PAST_RESERVATIONS = 100_000;
  static final Duration WARM_UP = Duration.ofSeconds(2);
  static final String ACCOUNT = "bench-account-0";

  /** Statements per step of each load, as the steps below run them. */
  static final int CYCLE_STATEMENTS = 4;

  static final int UNLIMITED_DISPATCH_STATEMENTS = 3;
  static final int ALLOWANCE_DISPATCH_STATEMENTS = 7;

  /** Limited (so that the allowance really checks) but never reached by the bench. */
  static final AllowancePolicy POLICY =
      new AllowancePolicy(
          Duration.ofHours(1), 1_000_000_000L, 1_000_000_000L, 1_000_000, 1_000_000, Map.of(), 1);

  static final String BARE_TABLE = "bench_bare_operations";

  /** The lease rules' claim, word for word but for the table and a bound lease length. */
  static final String BARE_CLAIM =
      """
      UPDATE bench_bare_operations
      SET lease_owner = ?,
          lease_until = clock_timestamp() + ?::interval,
          revision = revision + 1
      WHERE operation_id = ?
        AND next_action = 'observe'
        AND remote_job_id IS NOT NULL AND btrim(remote_job_id) <> ''
        AND (lease_until IS NULL OR lease_until <= clock_timestamp())
      RETURNING operation_id, remote_job_id, revision
      """;

  private final BenchServices services;
  private final Consumer<String> progress;
  private final String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  /** Numbers the dispatch cycles' new operations: a slice's iterations start again at 0. */
  private final java.util.concurrent.atomic.AtomicLong dispatched =
      new java.util.concurrent.atomic.AtomicLong();

  LedgerBench(BenchServices services, Consumer<String> progress) {
    this.services = services;
    this.progress = progress;
  }

  BenchReport run(int clients, Duration measured) throws InterruptedException {
    try (Database database = services.open(clients)) {
      DataSource dataSource = database.dataSource();
      OperationsLedger ledger = new OperationsLedger(dataSource);
      try {
        progress.accept("preparing " + clients * ROWS_PER_CLIENT + " operations per side");
        List<List<String>> rows = prepare(ledger, dataSource, clients);
        DispatchAllowance allowance = new DispatchAllowance(dataSource, POLICY);
        progress.accept("allowance: reserve on an empty history");
        long reservationsBeforeEmpty = reservations(dataSource);
        Double empty = reserveMillis(ledger, allowance, "empty-");
        progress.accept(
            "ledger cycle vs bare claim: " + clients + " clients, " + measured.toSeconds() + " s");
        List<SideBySide.Totals> totals =
            new SideBySide(clients)
                .run(
                    (client, i) -> ourCycle(ledger, rows.get(client), client, i),
                    (client, i) -> bareClaim(dataSource, rows.get(client), client, i),
                    measured,
                    WARM_UP);
        progress.accept(
            "dispatch with an allowance vs without: "
                + clients
                + " clients, "
                + measured.toSeconds()
                + " s");
        List<SideBySide.Totals> dispatch =
            new SideBySide(clients)
                .run(
                    (client, i) -> allowanceDispatch(ledger, allowance, client, i),
                    (client, i) -> unlimitedDispatch(ledger, client, i),
                    measured,
                    WARM_UP);
        progress.accept("allowance: inserting " + PAST_RESERVATIONS + " past reservations");
        seedPastReservations(dataSource);
        progress.accept("allowance: reserve after " + PAST_RESERVATIONS + " past reservations");
        long reservationsBefore100k = reservations(dataSource);
        Double full = reserveMillis(ledger, allowance, "full-");
        Double ours = totals.get(0).perSecond();
        Double bare = totals.get(1).perSecond();
        Double limited = dispatch.get(0).perSecond();
        Double unlimited = dispatch.get(1).perSecond();
        Double limitedDispatches = perStep(limited, ALLOWANCE_DISPATCH_STATEMENTS);
        Double unlimitedDispatches = perStep(unlimited, UNLIMITED_DISPATCH_STATEMENTS);
        return new BenchReport("ledger")
            .put("clients", clients)
            .put("ours_statements_per_s", ours)
            .put("bare_statements_per_s", bare)
            .put("ratio", Figures.ratio(ours, bare))
            .put("ours_cycles_per_s", perStep(ours, CYCLE_STATEMENTS))
            .put("bare_claims_per_s", bare)
            .put("dispatch_unlimited_per_s", unlimitedDispatches)
            .put("dispatch_allowance_per_s", limitedDispatches)
            .put("allowance_ratio", Figures.ratio(limitedDispatches, unlimitedDispatches))
            .put("dispatch_unlimited_statements_per_s", unlimited)
            .put("dispatch_allowance_statements_per_s", limited)
            .put("allowance_reserve_ms_empty", empty)
            .put("allowance_reserve_ms_100k", full)
            .put("allowance_reserve_ratio", Figures.ratio(full, empty))
            .put("reservations_before_empty", reservationsBeforeEmpty)
            .put("reservations_before_100k", reservationsBefore100k)
            .put("measured_s", measured.toSeconds());
      } finally {
        cleanUp(dataSource);
      }
    }
  }

  private static Double perStep(Double statementsPerSecond, int statementsPerStep) {
    return statementsPerSecond == null
        ? null
        : Figures.round(statementsPerSecond / statementsPerStep);
  }

  private static long reservations(DataSource dataSource) {
    return BenchSql.count(dataSource, "SELECT count(*) FROM app_dispatch_reservations");
  }

  /**
   * Per client, operations in {@code observing}, and the same rows in a bare table shaped like the
   * operations table, then both tables vacuumed and analyzed.
   */
  private List<List<String>> prepare(OperationsLedger ledger, DataSource dataSource, int clients) {
    List<List<String>> rows = new ArrayList<>();
    for (int client = 0; client < clients; client++) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < ROWS_PER_CLIENT; i++) {
        String id = prefix + "c" + client + "-" + i;
        observing(ledger, id);
        ids.add(id);
      }
      rows.add(ids);
    }
    BenchSql.execute(dataSource, "DROP TABLE IF EXISTS " + BARE_TABLE); // a crashed run's
    BenchSql.execute(
        dataSource,
        "CREATE TABLE "
            + BARE_TABLE
            + " (LIKE app_generation_operations INCLUDING ALL)"
            + " WITH (fillfactor = "
            + BenchSql.text(
                dataSource,
                "SELECT coalesce(substring(array_to_string(reloptions, ',')"
                    + " FROM 'fillfactor=([0-9]+)'), '100') FROM pg_class"
                    + " WHERE oid = 'app_generation_operations'::regclass")
            + ")");
    BenchSql.execute(
        dataSource,
        "INSERT INTO "
            + BARE_TABLE
            + " SELECT * FROM app_generation_operations WHERE operation_id LIKE '"
            + prefix
            + "c%'");
    BenchSql.vacuumAnalyze(
        dataSource, "app_generation_operations", BARE_TABLE, "app_dispatch_reservations");
    return rows;
  }

  /**
   * A dispatch with no allowance whose POST was accepted, of a new operation: create, claim to
   * submit, accepted.
   */
  private long unlimitedDispatch(OperationsLedger ledger, int client, long i) {
    String id = prefix + "u" + client + "-" + dispatched.incrementAndGet();
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"bench\"}", ACCOUNT));
    Lease lease = BenchClaims.lease(ledger.claimToSubmit(id, "bench-dispatch"));
    accepted(ledger, lease);
    return UNLIMITED_DISPATCH_STATEMENTS;
  }

  /**
   * The same with a limited allowance: create, claim, reserve, submitting, accepted, settle
   * (spent).
   */
  private long allowanceDispatch(
      OperationsLedger ledger, DispatchAllowance allowance, int client, long i) {
    String id = prefix + "a" + client + "-" + dispatched.incrementAndGet();
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"bench\"}", ACCOUNT));
    ClaimResult.Acquired claim = BenchClaims.acquired(ledger.claimToPost(id, "bench-dispatch"));
    if (!allowance.reserve(id, claim.account(), claim.model()).granted()) {
      throw new IllegalStateException("the bench's allowance refused a reservation");
    }
    if (ledger.markSubmitting(claim.lease()) != WriteResult.APPLIED) {
      throw new IllegalStateException("the bench could not mark " + id + " submitting");
    }
    accepted(ledger, claim.lease());
    allowance.settle(id, true);
    return ALLOWANCE_DISPATCH_STATEMENTS;
  }

  private static void accepted(OperationsLedger ledger, Lease lease) {
    if (ledger.recordAccepted(lease, "gen_" + lease.operationId()) != WriteResult.APPLIED) {
      throw new IllegalStateException("the bench could not record " + lease.operationId());
    }
  }

  /** Create, claim dispatch, submitting, accepted: the operation waits to be observed. */
  private static void observing(OperationsLedger ledger, String id) {
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"bench\"}", ACCOUNT));
    Lease lease = BenchClaims.lease(ledger.claim(id, "bench-setup", NextAction.DISPATCH));
    ledger.markSubmitting(lease);
    ledger.recordAccepted(lease, "gen_" + id);
  }

  private static long ourCycle(OperationsLedger ledger, List<String> ids, int client, long i) {
    String id = ids.get((int) (i % ids.size()));
    ClaimResult claim = ledger.claim(id, "bench-client-" + client, NextAction.OBSERVE);
    Lease lease = BenchClaims.lease(claim);
    if (!(ledger.renew(lease) instanceof RenewResult.Renewed)) {
      throw new IllegalStateException("the bench's own lease on " + id + " was not renewed");
    }
    ledger.recordSnapshot(
        lease, RemoteStatus.RUNNING, "{\"id\":\"gen_" + id + "\",\"status\":\"running\"}", null);
    ledger.release(lease);
    return CYCLE_STATEMENTS;
  }

  private static long bareClaim(DataSource dataSource, List<String> ids, int client, long i)
      throws SQLException {
    String id = ids.get((int) (i % ids.size()));
    try (Connection connection = dataSource.getConnection();
        PreparedStatement claim = connection.prepareStatement(BARE_CLAIM)) {
      claim.setString(1, "bench-client-" + client);
      claim.setString(2, "0 milliseconds");
      claim.setString(3, id);
      try (ResultSet rs = claim.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("the bare claim of " + id + " acquired nothing");
        }
      }
    }
    return 1;
  }

  /** The median reserve latency over fresh operations, each reservation settled as spent. */
  private Double reserveMillis(
      OperationsLedger ledger, DispatchAllowance allowance, String namePart) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < RESERVE_SAMPLES; i++) {
      String id = prefix + "allowance-" + namePart + i;
      ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"bench\"}", ACCOUNT));
      ids.add(id);
    }
    List<Double> samples = new ArrayList<>();
    for (String id : ids) {
      long started = System.nanoTime();
      if (!allowance.reserve(id, ACCOUNT, "image-v1").granted()) {
        throw new IllegalStateException("the bench's allowance refused a reservation");
      }
      samples.add(Figures.millis(System.nanoTime() - started));
      allowance.settle(id, true);
    }
    return Figures.percentile(samples, 50);
  }

  /**
   * Delivered operations, each with a spent reservation, one every 6 seconds over the last week, on
   * 50 accounts (so about 600 fall in the policy's one-hour window). Direct SQL: a history this
   * long cannot be made through the API in reasonable time.
   */
  private void seedPastReservations(DataSource dataSource) {
    String operations =
        """
        INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,
                                               account)
        SELECT '%1$s' || 'past-' || g, 'delivered', 'none', 'image-v1', '{}'::jsonb,
               'bench-account-' || (g %% 50)
        FROM generate_series(1, %2$d) g
        """
            .formatted(prefix, PAST_RESERVATIONS);
    String reservations =
        """
        INSERT INTO app_dispatch_reservations (operation_id, account, credits, state, reserved_at,
                                               settled_at)
        SELECT '%1$s' || 'past-' || g, 'bench-account-' || (g %% 50), 1, 'spent',
               clock_timestamp() - g * interval '6 seconds',
               clock_timestamp() - g * interval '6 seconds' + interval '1 second'
        FROM generate_series(1, %2$d) g
        """
            .formatted(prefix, PAST_RESERVATIONS);
    BenchSql.execute(dataSource, operations);
    // Before the reservations: a connection's cached foreign-key check, planned while the table
    // was small, would otherwise scan the whole table for each of the 100k rows.
    BenchSql.execute(dataSource, "ANALYZE app_generation_operations");
    BenchSql.execute(dataSource, reservations);
    BenchSql.vacuumAnalyze(dataSource, "app_generation_operations", "app_dispatch_reservations");
  }

  private void cleanUp(DataSource dataSource) {
    try {
      BenchSql.execute(dataSource, "DROP TABLE IF EXISTS " + BARE_TABLE);
      BenchSql.execute(
          dataSource,
          "DELETE FROM app_dispatch_reservations WHERE operation_id LIKE '" + prefix + "%'");
      BenchSql.execute(
          dataSource,
          "DELETE FROM app_generation_transitions WHERE operation_id LIKE '" + prefix + "%'");
      BenchSql.execute(
          dataSource,
          "DELETE FROM app_generation_operations WHERE operation_id LIKE '" + prefix + "%'");
    } catch (RuntimeException e) {
      progress.accept("could not remove the bench's rows (prefix " + prefix + "): " + e);
    }
  }
}
