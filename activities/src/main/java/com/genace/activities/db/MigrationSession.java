package com.genace.activities.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

/**
 * Before each script, sets its lock timeout by its kind (in a transaction: short; outside, a
 * concurrent index build: long, see {@link Migrations}); remembers the script under way, so that a
 * failure names it, and counts the scripts applied.
 */
final class MigrationSession implements Callback {

  private final Migrations.Policy policy;
  private MigrationInfo current;
  private boolean currentInTransaction;
  private int applied;

  MigrationSession(Migrations.Policy policy) {
    this.policy = policy;
  }

  /** Forgets the script of a previous attempt. */
  void startAttempt() {
    current = null;
  }

  /** The script that began and did not finish in the last attempt, if any. */
  Optional<MigrationInfo> failed() {
    return Optional.ofNullable(current);
  }

  /** Whether that script ran in a transaction (so its failure rolled everything back). */
  boolean failedInTransaction() {
    return currentInTransaction;
  }

  int applied() {
    return applied;
  }

  @Override
  public boolean supports(Event event, Context context) {
    return event == Event.BEFORE_EACH_MIGRATE || event == Event.AFTER_EACH_MIGRATE;
  }

  @Override
  public boolean canHandleInTransaction(Event event, Context context) {
    return true;
  }

  @Override
  public void handle(Event event, Context context) {
    if (event == Event.AFTER_EACH_MIGRATE) {
      current = null;
      applied++;
      return;
    }
    current = context.getMigrationInfo();
    Connection connection = context.getConnection();
    try (Statement statement = connection.createStatement()) {
      // Flyway calls this inside the script's transaction when it has one.
      currentInTransaction = !connection.getAutoCommit();
      long millis =
          (currentInTransaction ? policy.lockTimeout() : policy.indexLockTimeout()).toMillis();
      statement.execute("SET lock_timeout = " + millis);
    } catch (SQLException e) {
      throw new MigrationException(
          "could not set the lock timeout of " + Migrations.name(current), e);
    }
  }

  @Override
  public String getCallbackName() {
    return "genace-migration-session";
  }
}
