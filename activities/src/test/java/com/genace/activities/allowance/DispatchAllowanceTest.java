package com.genace.activities.allowance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.db.Sql;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DatabaseExtension.class)
class DispatchAllowanceTest {

  private static AllowancePolicy policy(
      long globalCredits, long accountCredits, int globalInFlight, int accountInFlight) {
    return new AllowancePolicy(
        Duration.ofHours(1),
        globalCredits,
        accountCredits,
        globalInFlight,
        accountInFlight,
        Map.of("video-v1", 5L),
        1);
  }

  private static void create(DataSource db, String id, String account) {
    new OperationsLedger(db).create(new NewOperation(id, "image-v1", "{}", account));
  }

  @Test
  void credits_are_reserved_per_model_until_the_window_is_used_up(DataSource db) {
    DispatchAllowance allowance = new DispatchAllowance(db, policy(6, 100, 100, 100));
    for (String id : List.of("op-1", "op-2", "op-3")) {
      create(db, id, "acme");
    }

    assertThat(allowance.reserve("op-1", "acme", "video-v1").granted()).isTrue();
    assertThat(allowance.reserve("op-2", "acme", "image-v1").granted()).isTrue();
    SpendingAllowance.Reservation refused = allowance.reserve("op-3", "acme", "image-v1");

    assertThat(refused.granted()).isFalse();
    assertThat(refused.reason()).isEqualTo("allowance: 6 of 6 credits used in the window");
    assertThat(allowance.usage().creditsInWindow()).isEqualTo(6);
  }

  @Test
  void the_usage_names_the_accounts_that_used_most_only_while_accounts_are_limited(DataSource db) {
    DispatchAllowance accounts = new DispatchAllowance(db, policy(100, 50, 100, 100));
    create(db, "op-a1", "acme");
    create(db, "op-a2", "acme");
    create(db, "op-b1", "globex");
    accounts.reserve("op-a1", "acme", "video-v1");
    accounts.reserve("op-a2", "acme", "image-v1");
    accounts.reserve("op-b1", "globex", "image-v1");

    assertThat(accounts.usage().accountsInWindow())
        .containsExactly(Map.entry("acme", 6L), Map.entry("globex", 1L));
    assertThat(
            new DispatchAllowance(db, policy(100, Long.MAX_VALUE, 100, 100))
                .usage()
                .accountsInWindow())
        .as("no account limit: nothing to alert on")
        .isEmpty();
  }

  @Test
  void released_reservations_give_their_credits_back_and_spent_ones_do_not(DataSource db) {
    DispatchAllowance allowance = new DispatchAllowance(db, policy(1, 100, 100, 100));
    create(db, "op-1", "acme");
    create(db, "op-2", "acme");

    allowance.reserve("op-1", "acme", "image-v1");
    allowance.settle("op-1", false);
    assertThat(allowance.reserve("op-2", "acme", "image-v1").granted()).isTrue();
    allowance.settle("op-2", true);
    assertThat(allowance.reserve("op-1", "acme", "image-v1").granted()).isFalse();
  }

  @Test
  void account_limits_are_kept_apart_from_other_accounts(DataSource db) {
    DispatchAllowance allowance = new DispatchAllowance(db, policy(100, 100, 100, 1));
    create(db, "op-a1", "acme");
    create(db, "op-a2", "acme");
    create(db, "op-b1", "globex");

    assertThat(allowance.reserve("op-a1", "acme", "image-v1").granted()).isTrue();
    assertThat(allowance.reserve("op-a2", "acme", "image-v1"))
        .isEqualTo(
            new SpendingAllowance.Reservation(
                false, "allowance: 1 dispatch(es) in flight for acme"));
    assertThat(allowance.reserve("op-b1", "globex", "image-v1").granted()).isTrue();
  }

  @Test
  void a_retry_of_the_same_operation_replaces_its_open_reservation(DataSource db) {
    DispatchAllowance allowance = new DispatchAllowance(db, policy(100, 100, 1, 100));
    create(db, "op-1", "acme");

    assertThat(allowance.reserve("op-1", "acme", "image-v1").granted()).isTrue();
    assertThat(allowance.reserve("op-1", "acme", "image-v1").granted()).isTrue();
    assertThat(allowance.usage().inFlight()).isEqualTo(1);
  }

  @Test
  void a_reservation_waits_for_one_in_progress_elsewhere_and_then_sees_it(DataSource db)
      throws Exception {
    DispatchAllowance allowance = new DispatchAllowance(db, policy(1, 100, 100, 100));
    create(db, "op-0", "acme");
    create(db, "op-1", "acme");
    create(db, "op-2", "acme");
    // The scope's slices exist, their window is current and the one credit is shared out.
    assertThat(allowance.reserve("op-0", "acme", "image-v1").granted()).isTrue();
    allowance.settle("op-0", false);
    int home = DispatchAllowance.homeSlice("op-1");
    try (Connection other = db.getConnection()) {
      // Another worker is half-way through reserving the last credit, every slice locked, as a
      // reservation that shares the budgets out again holds them.
      other.setAutoCommit(false);
      try (Statement statement = other.createStatement()) {
        statement.execute(
            "SELECT 1 FROM app_allowance_slices WHERE scope = '*' ORDER BY slice FOR UPDATE");
        statement.execute(
            "INSERT INTO app_dispatch_reservations (operation_id, account, credits, state, slice)"
                + " VALUES ('op-1', 'acme', 1, 'in_flight', "
                + home
                + ")");
        statement.execute(
            "UPDATE app_allowance_slices SET credits = CASE WHEN slice = "
                + home
                + " THEN 1 ELSE 0 END, credit_budget = CASE WHEN slice = "
                + home
                + " THEN 1 ELSE 0 END WHERE scope = '*'");
      }
      CompletableFuture<SpendingAllowance.Reservation> mine =
          CompletableFuture.supplyAsync(() -> allowance.reserve("op-2", "acme", "image-v1"));
      awaitWaitingOnRowLock(db);
      other.commit();

      assertThat(mine.get(30, TimeUnit.SECONDS).granted()).isFalse();
    }
    assertThat(allowance.usage().creditsInWindow()).isEqualTo(1);
  }

  @Test
  void one_accounts_locked_counter_never_makes_another_account_wait(DataSource db)
      throws Exception {
    // Only per-account limits: no fleet-wide row to serialize on.
    DispatchAllowance allowance =
        new DispatchAllowance(db, policy(Long.MAX_VALUE, 10, Integer.MAX_VALUE, 10));
    create(db, "op-a1", "acme");
    create(db, "op-a2", "acme");
    create(db, "op-b1", "globex");
    assertThat(allowance.reserve("op-a1", "acme", "image-v1").granted()).isTrue();
    try (Connection other = db.getConnection()) {
      // A reservation for acme is in progress and holds all of acme's slices.
      other.setAutoCommit(false);
      try (Statement statement = other.createStatement()) {
        statement.execute(
            "SELECT 1 FROM app_allowance_slices WHERE scope = 'account:acme' ORDER BY slice"
                + " FOR UPDATE");
      }

      CompletableFuture<SpendingAllowance.Reservation> globex =
          CompletableFuture.supplyAsync(() -> allowance.reserve("op-b1", "globex", "image-v1"));
      CompletableFuture<SpendingAllowance.Reservation> acme =
          CompletableFuture.supplyAsync(() -> allowance.reserve("op-a2", "acme", "image-v1"));

      // globex completes while acme's slices stay locked; acme's own reservation waits for it
      // and gives up at the pool's lock timeout.
      assertThat(globex.get(30, TimeUnit.SECONDS).granted()).isTrue();
      assertThatThrownBy(() -> acme.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(AllowanceException.class)
          .hasMessageContaining("gave up waiting");
      other.rollback();
    }
    assertThat(allowance.usage().creditsInWindow()).isEqualTo(2);
  }

  @Test
  void an_unlimited_allowance_runs_no_statement_at_all(DataSource db) {
    List<String> statements = new java.util.concurrent.CopyOnWriteArrayList<>();
    Sql sql =
        new Sql(
            db,
            io.opentelemetry.api.OpenTelemetry.noop(),
            (statement, elapsed, outcome) -> statements.add(statement));
    DispatchAllowance allowance = new DispatchAllowance(sql, AllowancePolicy.UNLIMITED);

    assertThat(allowance.reserve("op-1", "acme", "image-v1").granted()).isTrue();
    allowance.settle("op-1", true);
    allowance.usage();

    assertThat(statements).isEmpty();
  }

  @Test
  void a_crashed_dispatch_that_went_to_review_stops_holding_the_in_flight_cap(DataSource db) {
    DispatchAllowance allowance = new DispatchAllowance(db, policy(100, 100, 1, 100));
    create(db, "op-1", "acme");
    create(db, "op-2", "acme");
    assertThat(allowance.reserve("op-1", "acme", "image-v1").granted()).isTrue();
    // The worker died after reserving; a takeover moved the operation to review, unsettled.
    execute(
        db,
        "UPDATE app_generation_operations SET phase = 'in_review', next_action = 'reconcile'"
            + " WHERE operation_id = 'op-1'");

    assertThat(allowance.reserve("op-2", "acme", "image-v1").granted()).isTrue();
    assertThat(allowance.usage().inFlight()).isEqualTo(1);
    assertThat(allowance.usage().creditsInWindow())
        .as("the orphan's credits stay spent: its POST may have left")
        .isEqualTo(2);
  }

  private static void execute(DataSource db, String sql) {
    try (Connection connection = db.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitWaitingOnRowLock(DataSource db) throws Exception {
    try (Connection admin = db.getConnection();
        Statement statement = admin.createStatement()) {
      for (int attempt = 0; attempt < 500; attempt++) {
        try (ResultSet rs =
            statement.executeQuery(
                "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE '%app_allowance_slices%'")) {
          if (rs.next()) {
            return;
          }
        }
        Thread.sleep(20);
      }
    }
    throw new AssertionError("the reservation never waited for the one in progress");
  }

  @Test
  void racing_reservations_on_many_connections_never_exceed_the_allowance(DataSource db)
      throws Exception {
    DispatchAllowance allowance = new DispatchAllowance(db, policy(5, 100, 100, 100));
    int contenders = 12;
    for (int i = 0; i < contenders; i++) {
      create(db, "op-" + i, "acme");
    }
    ExecutorService pool = Executors.newFixedThreadPool(contenders);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Boolean>> results = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      String id = "op-" + i;
      results.add(
          pool.submit(
              () -> {
                start.await();
                return allowance.reserve(id, "acme", "image-v1").granted();
              }));
    }
    start.countDown();
    int granted = 0;
    for (Future<Boolean> result : results) {
      granted += result.get() ? 1 : 0;
    }
    pool.shutdown();

    assertThat(granted).isEqualTo(5);
    assertThat(allowance.usage().creditsInWindow()).isEqualTo(5);
  }

  @Test
  void malformed_model_costs_are_refused_with_the_entry() {
    assertThat(AllowancePolicy.parseCosts("image-v1=2, video-v1=10"))
        .containsEntry("image-v1", 2L)
        .containsEntry("video-v1", 10L);
    assertThatThrownBy(() -> AllowancePolicy.parseCosts("image-v1=two"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected model=credits, got 'image-v1=two'");
  }
}
