package com.genace.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseUrl;
import com.genace.testkit.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The sampler against a real PostgreSQL: a row lock held by one worker, waited on by others. */
class LockWaitSamplerTest {

  private static final String HOLD = "UPDATE fleet_counter SET n = n + 1 WHERE id = 1";
  private static final String WAIT = "UPDATE fleet_counter SET n = n + 2 WHERE id = 1";

  private static EmbeddedDatabase postgres;

  @BeforeAll
  static void start() {
    postgres = EmbeddedDatabase.start(0);
  }

  @AfterAll
  static void stop() {
    postgres.close();
  }

  @Test
  void tells_a_wait_on_another_worker_from_a_wait_within_one_and_names_both_statements()
      throws Exception {
    try (Database sampling = open(null);
        Database first = open("bench-fleet-1");
        Database firstAgain = open("bench-fleet-1");
        Database second = open("bench-fleet-2");
        Connection holder = first.dataSource().getConnection()) {
      execute(sampling, "CREATE TABLE fleet_counter (id int PRIMARY KEY, n int NOT NULL)");
      execute(sampling, "INSERT INTO fleet_counter VALUES (1, 0)");
      holder.setAutoCommit(false);
      try (LockWaitSampler sampler =
          new LockWaitSampler(sampling.dataSource(), "bench-fleet-", StatementNames.load())
              .start()) {
        // Worker 2 waits on worker 1's transaction, then worker 1 on itself (another connection).
        waitOn(holder, second, sampler, () -> sampler.acrossWorkers() > 0);
        waitOn(holder, firstAgain, sampler, () -> sampleOf(sampler, "within_a_worker") > 0);
        sampler.close();

        Map<String, Object> figures = sampler.figures();
        assertThat((Long) figures.get("waiting_samples")).isPositive();
        assertThat((Long) figures.get("samples"))
            .isGreaterThanOrEqualTo((Long) figures.get("waiting_samples"));
        assertThat(figures.get("by_statement"))
            .asInstanceOf(InstanceOfAssertFactories.MAP)
            .containsOnlyKeys(WAIT + " <- " + HOLD + " (idle in transaction)");
      }
    }
  }

  /** Holds the row in {@code holder}, runs {@link #WAIT} from {@code waiter} until it is seen. */
  private static void waitOn(
      Connection holder, Database waiter, LockWaitSampler sampler, Callable<Boolean> seen)
      throws Exception {
    try (Statement statement = holder.createStatement()) {
      statement.executeUpdate(HOLD);
    }
    CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> execute(waiter, WAIT));
    await().atMost(Duration.ofSeconds(30)).until(seen);
    assertThat(waiting).isNotDone();
    holder.commit();
    waiting.get();
  }

  private static long sampleOf(LockWaitSampler sampler, String kind) {
    return (Long) sampler.figures().get(kind);
  }

  private static Database open(String applicationName) {
    String url =
        applicationName == null
            ? postgres.url()
            : FleetBench.withApplicationName(postgres.url(), applicationName);
    return Database.open(DatabaseConfig.of(DatabaseUrl.parse(url)).withMaxPoolSize(1));
  }

  private static void execute(Database database, String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
