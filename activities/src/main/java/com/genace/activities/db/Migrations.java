package com.genace.activities.db;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the ledger's schema migrations to a database that may be serving workers, so that no
 * worker statement waits on a migration longer than its own lock timeout (2 s, {@link
 * DatabaseConfig}).
 *
 * <ol>
 *   <li>Connections of its own, not the pool's: no statement timeout (an index build on a large
 *       table takes as long as it takes), named {@value #APPLICATION_NAME} in {@code
 *       pg_stat_activity}.
 *   <li>Flyway's advisory lock is held by the session, not by a transaction ({@code
 *       postgresql.transactional.lock=false}): a concurrent index build waits for every transaction
 *       older than itself, and would wait for that one for ever.
 *   <li>A script that runs in a transaction waits at most {@link Policy#lockTimeout()} for each
 *       lock. Worker statements that arrive meanwhile queue behind its request, so this bound, not
 *       how long another session keeps the table, is what they wait. When it runs out, the script
 *       rolls back and the run starts again after a pause, until {@link Policy#retryFor()} has
 *       passed.
 *   <li>A script outside a transaction only builds or drops indexes concurrently (the rule the
 *       tests' {@code MigrationRules} enforce): its locks conflict with no worker statement, so it
 *       waits up to {@link Policy#indexLockTimeout()} for older transactions to end rather than
 *       throw a finished build away.
 *   <li>Such a script that failed is not recorded as failed (Flyway's history entry is removed,
 *       {@code repair}): it is re-runnable by that rule, so the next run applies it again.
 * </ol>
 */
public final class Migrations {

  /** Where the scripts are: {@code activities/src/main/resources/db/migration}. */
  public static final String LOCATION = "classpath:db/migration";

  public static final String APPLICATION_NAME = "genace db migrate";

  /** PostgreSQL's lock_not_available: a lock timeout ran out. */
  static final String LOCK_NOT_AVAILABLE = "55P03";

  private static final Logger log = LoggerFactory.getLogger(Migrations.class);

  /**
   * How long a run waits for locks.
   *
   * @param lockTimeout each lock wait of a script in a transaction; well under the workers' 2 s, as
   *     a script may wait for the locks of a few tables in turn while holding the first
   * @param indexLockTimeout each wait of a concurrent index build or drop, which holds up nobody
   * @param retryFor how long a run starts again after a lock timeout before it gives up
   */
  public record Policy(Duration lockTimeout, Duration indexLockTimeout, Duration retryFor) {

    public static final Policy DEFAULT =
        new Policy(Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ofMinutes(5));

    public Policy {
      requirePositive(lockTimeout, "migration lock timeout");
      requirePositive(indexLockTimeout, "migration index lock timeout");
      requirePositive(retryFor, "migration retry time");
    }

    private static void requirePositive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive");
      }
    }
  }

  /**
   * A script that ran out of its lock timeout, rolled back, and is tried again after {@code pause}.
   *
   * @param holders the oldest open transactions of other sessions, as the likely reason
   */
  public record LockWait(String migration, int attempt, Duration pause, String holders) {}

  /** Told of every lock wait that makes a run start again. */
  @FunctionalInterface
  public interface Listener {
    Listener LOG =
        wait ->
            log.warn(
                "{} waited too long for a lock and rolled back (attempt {}); oldest open"
                    + " transactions: {}; trying again in {} ms",
                wait.migration(),
                wait.attempt(),
                wait.holders(),
                wait.pause().toMillis());

    void lockWait(LockWait wait);
  }

  private final DatabaseUrl url;
  private final Policy policy;
  private final Listener listener;
  private final List<String> locations;

  public Migrations(DatabaseUrl url, Policy policy, Listener listener, List<String> locations) {
    this.url = url;
    this.policy = policy;
    this.listener = listener;
    this.locations = List.copyOf(locations);
  }

  /** The production scripts with the default policy, lock waits logged. */
  public static Migrations of(DatabaseUrl url) {
    return new Migrations(url, Policy.DEFAULT, Listener.LOG, List.of(LOCATION));
  }

  /** How many of the production scripts are not applied to the database behind {@code source}. */
  public static int pending(DataSource source) {
    return Flyway.configure().dataSource(source).locations(LOCATION).load().info().pending().length;
  }

  /**
   * Applies every pending script; returns how many were applied.
   *
   * @throws MigrationException naming the script that failed and why; a script that ran out of its
   *     lock timeout for longer than {@link Policy#retryFor()} names the oldest open transactions
   */
  public int apply() {
    MigrationSession session = new MigrationSession(policy);
    Flyway flyway = flyway(session);
    long deadline = System.nanoTime() + policy.retryFor().toNanos();
    for (int attempt = 1; ; attempt++) {
      session.startAttempt();
      try {
        flyway.migrate();
        return session.applied();
      } catch (FlywayException e) {
        Optional<MigrationInfo> failed = session.failed();
        if (failed.isPresent() && !session.failedInTransaction()) {
          forgetFailure(flyway, e);
        }
        if (!lockTimedOut(e)) {
          throw new MigrationException(
              failed.map(info -> name(info) + " failed: ").orElse("") + rootMessage(e), e);
        }
        String migration = failed.map(Migrations::name).orElse("Flyway's own statement");
        Duration pause = pause(attempt);
        String holders = OpenTransactions.oldest(flyway.getConfiguration().getDataSource());
        if (System.nanoTime() + pause.toNanos() > deadline) {
          Duration waited =
              failed.isPresent() && !session.failedInTransaction()
                  ? policy.indexLockTimeout()
                  : policy.lockTimeout();
          throw new MigrationException(
              String.format(
                  "%s could not take its locks within %d s (%d attempt(s), each lock waited for"
                      + " at most %d ms); oldest open transactions: %s",
                  migration, policy.retryFor().toSeconds(), attempt, waited.toMillis(), holders),
              e);
        }
        listener.lockWait(new LockWait(migration, attempt, pause, holders));
        sleep(pause);
      }
    }
  }

  private Flyway flyway(MigrationSession session) {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setURL(url.jdbcUrl());
    url.user().ifPresent(source::setUser);
    url.password().ifPresent(source::setPassword);
    source.setApplicationName(APPLICATION_NAME);
    source.setConnectTimeout((int) DatabaseConfig.DEFAULT_CONNECT_TIMEOUT.toSeconds());
    source.setTcpKeepAlive(true);
    return Flyway.configure()
        .configuration(Map.of("flyway.postgresql.transactional.lock", "false"))
        .dataSource(source)
        .locations(locations.toArray(String[]::new))
        .initSql(
            "SET statement_timeout = 0; SET lock_timeout = "
                + policy.lockTimeout().toMillis()) // Flyway's own statements, too
        .callbacks(session)
        .load();
  }

  /**
   * Removes the failed entry of a script that ran outside a transaction, so that the next run
   * applies it again. Validation passed before any script ran, so repair has nothing else to do.
   */
  private static void forgetFailure(Flyway flyway, FlywayException failure) {
    try {
      flyway.repair();
    } catch (FlywayException e) {
      failure.addSuppressed(e);
    }
  }

  /** Short first (a worker statement ends in milliseconds), longer while a holder stays. */
  private static Duration pause(int attempt) {
    long base = Math.min(250L << Math.min(attempt - 1, 5), 5_000L);
    return Duration.ofMillis(base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1));
  }

  private static boolean lockTimedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && LOCK_NOT_AVAILABLE.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  static String name(MigrationInfo info) {
    return "V" + info.getVersion() + " (" + info.getDescription() + ")";
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return Optional.ofNullable(root.getMessage()).orElse(root.getClass().getName());
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MigrationException("interrupted while waiting to migrate again", e);
    }
  }
}
