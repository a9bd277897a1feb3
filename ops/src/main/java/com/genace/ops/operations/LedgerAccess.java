package com.genace.ops.operations;

import com.genace.activities.controls.WorkerControls;
import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseException;
import com.genace.activities.db.DatabaseUrl;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.ops.Environment;
import com.genace.ops.db.DbCommand;
import com.genace.worker.fleet.FleetConfiguration;
import java.sql.SQLException;
import java.util.function.Function;

/** A small pool on {@code DATABASE_URL}, for the commands that read or switch the ledger. */
final class LedgerAccess implements AutoCloseable {

  /** PostgreSQL's {@code undefined_table}: the ledger's schema has not been applied. */
  static final String UNDEFINED_TABLE = "42P01";

  private final DatabaseUrl url;
  private final Database database;

  private LedgerAccess(DatabaseUrl url, Database database) {
    this.url = url;
    this.database = database;
  }

  static LedgerAccess open(Environment env) {
    return open(env, 2);
  }

  /** With {@code connections} in the pool: one for each thread of a bulk command, and its walk. */
  static LedgerAccess open(Environment env, int connections) {
    DatabaseUrl url = DbCommand.databaseUrl(env);
    return new LedgerAccess(
        url, Database.open(DatabaseConfig.of(url).withMaxPoolSize(connections)));
  }

  /**
   * Runs {@code work} against the ledger, turning a database failure into one line that names the
   * database (never its password) and hints at the usual fix.
   */
  <T> T ledger(Function<OperationsLedger, T> work) {
    return attempt(() -> work.apply(new OperationsLedger(database.dataSource())));
  }

  <T> T controls(Function<WorkerControls, T> work) {
    return attempt(() -> work.apply(new WorkerControls(database.dataSource())));
  }

  <T> T fleet(Function<FleetConfiguration, T> work) {
    return attempt(() -> work.apply(new FleetConfiguration(database.dataSource())));
  }

  private <T> T attempt(java.util.function.Supplier<T> work) {
    try {
      return work.get();
    } catch (com.genace.activities.ledger.UnknownOperationException e) {
      throw e;
    } catch (DatabaseException e) {
      String message = e.getMessage();
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      // The pool's "connection is not available" hides why; the driver's message says it.
      if (root != e && root.getMessage() != null && !message.contains(root.getMessage())) {
        message = message + " (" + root.getMessage() + ")";
      }
      String hint = schemaMissing(e) ? " (run ./genace db migrate first)" : "";
      throw new DatabaseException("database " + url + ": " + message + hint, e);
    }
  }

  /** Whether {@code e} or a cause is PostgreSQL saying that a table is missing. */
  static boolean schemaMissing(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && UNDEFINED_TABLE.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    database.close();
  }
}
