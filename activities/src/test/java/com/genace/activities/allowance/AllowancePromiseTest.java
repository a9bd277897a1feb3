package com.genace.activities.allowance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The allowance's promise with its counters in slices, on several real connections at once: never
 * more than the allowance reserved in a window (fleet and account), never more dispatches in flight
 * than a cap, and all capacity back once reservations are settled or their crashed workers'
 * operations have moved on.
 */
@ExtendWith(DatabaseExtension.class)
class AllowancePromiseTest {

  static final long FLEET_CREDITS = 60;
  static final long ACCOUNT_CREDITS = 30;
  static final int FLEET_IN_FLIGHT = 6;
  static final int ACCOUNT_IN_FLIGHT = 3;
  static final List<String> ACCOUNTS = List.of("acme", "globex", "initech");
  static final List<String> MODELS = List.of("free", "image", "video");
  static final int WORKERS = 6;
  static final int STEPS = 60;

  static final AllowancePolicy POLICY =
      new AllowancePolicy(
          Duration.ofHours(1),
          FLEET_CREDITS,
          ACCOUNT_CREDITS,
          FLEET_IN_FLIGHT,
          ACCOUNT_IN_FLIGHT,
          Map.of("free", 0L, "image", 1L, "video", 3L),
          1);

  /**
   * In one snapshot: what the ledger holds as reserved and in flight, fleet-wide and per account.
   */
  static final String BOOKS =
      """
      SELECT coalesce(r.account, '*') AS scope,
             coalesce(sum(r.credits) FILTER (WHERE r.state IN ('in_flight', 'spent')), 0) AS credits,
             count(*) FILTER (WHERE r.state = 'in_flight'
                              AND o.phase IN ('pending', 'submitting')) AS in_flight
      FROM app_dispatch_reservations r
      JOIN app_generation_operations o ON o.operation_id = r.operation_id
      GROUP BY ROLLUP (r.account)
      """;

  @Test
  void racing_workers_that_crash_never_exceed_a_limit_and_leave_no_capacity_behind(DataSource db)
      throws Exception {
    DispatchAllowance allowance = new DispatchAllowance(db, POLICY);
    OperationsLedger ledger = new OperationsLedger(db);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicReference<String> broken = new AtomicReference<>();
    ExecutorService pool = Executors.newFixedThreadPool(WORKERS + 1);
    List<Future<Integer>> workers = new ArrayList<>();
    long seed = new Random().nextLong();
    try {
      Future<Integer> auditor =
          pool.submit(
              () -> {
                int audits = 0;
                while (running.get() && broken.get() == null) {
                  audit(db).ifPresent(broken::set);
                  audits++;
                }
                return audits;
              });
      for (int w = 0; w < WORKERS; w++) {
        int worker = w;
        workers.add(
            pool.submit(
                () -> work(db, ledger, allowance, worker, new Random(seed + worker), running)));
      }
      int granted = 0;
      for (Future<Integer> worker : workers) {
        granted += worker.get();
      }
      running.set(false);
      assertThat(auditor.get()).isPositive();
      assertThat(broken.get()).as("seed %d", seed).isNull();
      assertThat(audit(db)).as("seed %d", seed).isEmpty();
      assertThat(granted).as("the workers got reservations at all").isPositive();
    } finally {
      running.set(false);
      pool.shutdown();
      assertThat(pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }

    // Capacity returns: every crashed worker's operation has moved on (or was retried), every
    // other reservation is settled. Every dispatch slot and every credit left is usable.
    List<String> fresh = new ArrayList<>();
    for (int i = 0; i < FLEET_IN_FLIGHT; i++) {
      String id = "slot-" + i;
      ledger.create(new NewOperation(id, "free", "{}", "account-" + id));
      fresh.add(id);
    }
    for (String id : fresh) {
      assertThat(allowance.reserve(id, "account-" + id, "free").granted()).as(id).isTrue();
    }
    assertThat(reserveAndSpend(ledger, allowance, "extra-slot", "free").granted())
        .as("one more than the fleet's cap")
        .isFalse();
    for (String id : fresh) {
      allowance.settle(id, true);
    }
    long used = allowance.usage().creditsInWindow();
    assertThat(used).isEqualTo(reserved(db));
    int more = 0;
    while (reserveAndSpend(ledger, allowance, "rest-" + more, "image").granted()) {
      more++;
    }
    assertThat(used + more).as("seed %d", seed).isEqualTo(FLEET_CREDITS);
  }

  /** One worker: reserves, then spends, releases, keeps open or crashes, at random. */
  private static int work(
      DataSource db,
      OperationsLedger ledger,
      DispatchAllowance allowance,
      int worker,
      Random random,
      AtomicBoolean running)
      throws SQLException {
    List<String> open = new ArrayList<>();
    List<String> retries = new ArrayList<>();
    int granted = 0;
    for (int step = 0; step < STEPS && running.get(); step++) {
      String id = "w" + worker + "-" + step;
      String account = ACCOUNTS.get(random.nextInt(ACCOUNTS.size()));
      String model = MODELS.get(random.nextInt(MODELS.size()));
      if (!retries.isEmpty() && random.nextInt(4) == 0) {
        // A crashed attempt's operation dispatched again: its reservation is replaced.
        String retried = retries.remove(0);
        if (allowance.reserve(retried, accountOf(retried, db), "image").granted()) {
          allowance.settle(retried, random.nextBoolean());
        }
      }
      ledger.create(new NewOperation(id, model, "{}", account));
      if (!allowance.reserve(id, account, model).granted()) {
        continue;
      }
      granted++;
      int fate = random.nextInt(20);
      if (fate < 8) {
        allowance.settle(id, true);
      } else if (fate < 13) {
        allowance.settle(id, false);
      } else if (fate < 16) {
        open.add(id);
      } else if (fate < 18) {
        // The worker crashed after reserving; a takeover moved the operation to review.
        execute(
            db,
            "UPDATE app_generation_operations SET phase = 'in_review', next_action = 'reconcile'"
                + " WHERE operation_id = '"
                + id
                + "'");
      } else {
        // The worker crashed after reserving; the operation is still pending, dispatched later.
        retries.add(id);
      }
      if (!open.isEmpty() && random.nextInt(3) == 0) {
        allowance.settle(open.remove(random.nextInt(open.size())), random.nextBoolean());
      }
    }
    for (String id : open) {
      allowance.settle(id, random.nextBoolean());
    }
    for (String id : retries) {
      // Never dispatched again: the takeover sends it to review.
      execute(
          db,
          "UPDATE app_generation_operations SET phase = 'in_review', next_action = 'reconcile'"
              + " WHERE operation_id = '"
              + id
              + "'");
    }
    return granted;
  }

  private static SpendingAllowance.Reservation reserveAndSpend(
      OperationsLedger ledger, DispatchAllowance allowance, String id, String model) {
    String account = "spare-" + id;
    ledger.create(new NewOperation(id, model, "{}", account));
    SpendingAllowance.Reservation reservation = allowance.reserve(id, account, model);
    allowance.settle(id, true);
    return reservation;
  }

  /** What breaks the promise in the ledger's current state, if anything. */
  private static java.util.Optional<String> audit(DataSource db) throws SQLException {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(BOOKS)) {
      while (rs.next()) {
        String scope = rs.getString("scope");
        boolean fleet = scope.equals("*");
        long credits = rs.getLong("credits");
        long inFlight = rs.getLong("in_flight");
        if (credits > (fleet ? FLEET_CREDITS : ACCOUNT_CREDITS)) {
          return java.util.Optional.of(scope + " reserved " + credits + " credits");
        }
        if (inFlight > (fleet ? FLEET_IN_FLIGHT : ACCOUNT_IN_FLIGHT)) {
          return java.util.Optional.of(scope + " had " + inFlight + " dispatches in flight");
        }
      }
    }
    return java.util.Optional.empty();
  }

  private static long reserved(DataSource db) throws SQLException {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT coalesce(sum(credits), 0) FROM app_dispatch_reservations"
                    + " WHERE state IN ('in_flight', 'spent')")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String accountOf(String id, DataSource db) throws SQLException {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT account FROM app_generation_operations WHERE operation_id = '"
                    + id
                    + "'")) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void a_window_that_ended_starts_again_for_every_slice_at_once(DataSource db) throws Exception {
    DispatchAllowance allowance = new DispatchAllowance(db, POLICY);
    OperationsLedger ledger = new OperationsLedger(db);
    int spent = 0;
    while (reserveAndSpend(ledger, allowance, "old-" + spent, "image").granted()) {
      spent++;
    }
    assertThat(spent).isEqualTo(FLEET_CREDITS);
    // An hour passes.
    execute(db, "UPDATE app_allowance_slices SET window_start = window_start - interval '1 hour'");
    assertThat(allowance.usage().creditsInWindow()).isZero();

    assertThat(reserveAndSpend(ledger, allowance, "new-0", "video").granted()).isTrue();

    assertThat(allowance.usage().creditsInWindow()).isEqualTo(3);
    assertThat(
            count(
                db,
                "SELECT count(DISTINCT window_start) FROM app_allowance_slices WHERE scope = '*'"))
        .isEqualTo(1);
  }

  @Test
  void a_lowered_limit_is_kept_by_every_slice_at_once(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    DispatchAllowance generous = new DispatchAllowance(db, POLICY);
    for (int i = 0; i < 10; i++) {
      assertThat(reserveAndSpend(ledger, generous, "before-" + i, "image").granted()).isTrue();
    }
    DispatchAllowance strict =
        new DispatchAllowance(
            db,
            new AllowancePolicy(
                Duration.ofHours(1), 10, ACCOUNT_CREDITS, 100, 100, POLICY.modelCosts(), 1));

    for (int i = 0; i < 20; i++) {
      assertThat(reserveAndSpend(ledger, strict, "after-" + i, "image").granted())
          .as("after-%d", i)
          .isFalse();
    }
    assertThat(strict.usage().creditsInWindow()).isEqualTo(10);
  }

  @Test
  void a_worker_of_an_earlier_release_can_no_longer_write_the_old_counters(DataSource db) {
    assertThatThrownBy(
            () ->
                execute(
                    db,
                    "INSERT INTO app_allowance_counters (scope, window_start, credits)"
                        + " VALUES ('*', clock_timestamp(), 1) ON CONFLICT (scope) DO NOTHING"))
        .hasMessageContaining("must be upgraded before it can reserve credits");
  }

  private static long count(DataSource db, String sql) throws SQLException {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void execute(DataSource db, String sql) {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
