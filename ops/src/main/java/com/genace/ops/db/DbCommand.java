package com.genace.ops.db;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseUrl;
import com.genace.activities.db.MigrationException;
import com.genace.ops.ConfigurationException;
import com.genace.ops.Environment;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code genace db ...}: the operations table's schema. */
@Command(
    name = "db",
    mixinStandardHelpOptions = true,
    description = "Manage the operations table's schema.",
    subcommands = {DbCommand.Migrate.class})
public final class DbCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  /** Reads {@code DATABASE_URL}, naming the variable in every complaint. */
  public static DatabaseUrl databaseUrl(Environment env) {
    String value = env.require("DATABASE_URL");
    try {
      return DatabaseUrl.parse(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException("DATABASE_URL is invalid: " + e.getMessage());
    }
  }

  @Command(
      name = "migrate",
      mixinStandardHelpOptions = true,
      description = "Apply the schema migrations to the database named by DATABASE_URL.")
  static final class Migrate implements Runnable {

    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    Migrate(Environment env) {
      this.env = env;
    }

    @Override
    public void run() {
      DatabaseUrl url = databaseUrl(env);
      try (Database database = Database.open(DatabaseConfig.of(url))) {
        int applied = database.migrate();
        spec.commandLine()
            .getOut()
            .printf("applied %d migration(s); the schema of %s is current%n", applied, url);
      } catch (MigrationException e) {
        throw new IllegalStateException("could not migrate " + url + ": " + e.getMessage(), e);
      }
    }
  }
}
