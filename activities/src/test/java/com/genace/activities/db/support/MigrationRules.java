package com.genace.activities.db.support;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a migration script must not do to a ledger that workers are using (docs/deployment.md,
 * "Writing a migration"). Each rule names a statement that would hold a lock the workers'
 * statements wait on for longer than their 2 s lock timeout, or a script that a failure would leave
 * half done:
 *
 * <ol>
 *   <li>An index on an existing table is built {@code CONCURRENTLY}. A plain {@code CREATE INDEX}
 *       is allowed only on a table the same (transactional) script creates: until the script
 *       commits, no other session can see that table, so nobody can wait on its locks, and it is
 *       empty.
 *   <li>An index is dropped {@code CONCURRENTLY}.
 *   <li>A script with a concurrent statement runs outside a transaction (its {@code .sql.conf} says
 *       {@code executeInTransaction=false}), and such a script holds only concurrent index
 *       statements: every other change goes in a transactional script, which a failure rolls back.
 *   <li>Each {@code CREATE INDEX CONCURRENTLY name} follows a {@code DROP INDEX CONCURRENTLY IF
 *       EXISTS name}, and has no {@code IF NOT EXISTS}: a build that fails leaves an INVALID index
 *       of that name, which the script run again must replace, not keep.
 *   <li>On an existing table: no constraint that reads every row under its lock (CHECK, FOREIGN KEY
 *       or REFERENCES without {@code NOT VALID}; PRIMARY KEY, UNIQUE or EXCLUDE without {@code
 *       USING INDEX}; {@code SET NOT NULL}); nothing that rewrites the table (a column type change,
 *       a new column with a volatile default, a serial, identity or stored generated column, {@code
 *       SET LOGGED/UNLOGGED/TABLESPACE/ACCESS METHOD}); no {@code UPDATE} or {@code DELETE} (a
 *       backfill holds its rows' locks until the script commits).
 *   <li>No {@code LOCK}, {@code VACUUM FULL}, {@code CLUSTER}, or {@code REINDEX} / {@code REFRESH
 *       MATERIALIZED VIEW} without {@code CONCURRENTLY}.
 * </ol>
 *
 * <p>The SQL is read after removing comments, string literals and dollar-quoted bodies (a
 * function's body is not DDL), one statement per semicolon.
 */
public final class MigrationRules {

  /** A script as Flyway applies it. */
  public record Script(String name, String sql, boolean inTransaction) {

    /** Reads {@code file} and its {@code file.conf}, if any. */
    public static Script read(Path file) {
      try {
        Path conf = file.resolveSibling(file.getFileName() + ".conf");
        boolean inTransaction = true;
        if (Files.exists(conf)) {
          Properties properties = new Properties();
          properties.load(new StringReader(Files.readString(conf)));
          if (!properties.stringPropertyNames().equals(Set.of("executeInTransaction"))) {
            throw new IllegalArgumentException(
                conf.getFileName() + " may set executeInTransaction only");
          }
          inTransaction = Boolean.parseBoolean(properties.getProperty("executeInTransaction"));
        }
        return new Script(file.getFileName().toString(), Files.readString(file), inTransaction);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static final String NAME = "(\"?[A-Z_][A-Z0-9_$]*\"?(?:\\.\"?[A-Z_][A-Z0-9_$]*\"?)?)";
  private static final Pattern CREATE_TABLE =
      Pattern.compile("^CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?" + NAME);
  private static final Pattern CREATE_INDEX =
      Pattern.compile(
          "^CREATE (?:UNIQUE )?INDEX (CONCURRENTLY )?(IF NOT EXISTS )?(?:"
              + NAME
              + " )?ON (?:ONLY )?"
              + NAME);
  private static final Pattern DROP_INDEX_CONCURRENTLY =
      Pattern.compile("^DROP INDEX CONCURRENTLY IF EXISTS " + NAME + "$");
  private static final Pattern ALTER_TABLE =
      Pattern.compile("^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?" + NAME + " ");
  private static final Pattern CHANGES_ROWS =
      Pattern.compile("^(?:UPDATE (?:ONLY )?" + NAME + "|DELETE FROM (?:ONLY )?" + NAME + ")");
  private static final Pattern VALIDATING_CONSTRAINT =
      Pattern.compile("ADD (?:CONSTRAINT \\S+ )?(?:CHECK|FOREIGN KEY)|\\bREFERENCES\\b");
  private static final Pattern INDEXING_CONSTRAINT =
      Pattern.compile("ADD (?:CONSTRAINT \\S+ )?(?:PRIMARY KEY|UNIQUE|EXCLUDE)");
  private static final Pattern REWRITE =
      Pattern.compile(
          "ALTER (?:COLUMN )?\\S+ (?:SET DATA )?TYPE |\\bSET (?:LOGGED|UNLOGGED|TABLESPACE|ACCESS"
              + " METHOD)\\b|\\b(?:SMALL|BIG)?SERIAL\\b|\\bGENERATED\\b|DEFAULT [^,]*\\b(?:CLOCK_TIMESTAMP"
              + "|STATEMENT_TIMESTAMP|TIMEOFDAY|RANDOM|GEN_RANDOM_UUID|UUID_GENERATE_\\w+|NEXTVAL)\\s*\\(");
  private static final Pattern FORBIDDEN =
      Pattern.compile(
          "^(?:LOCK |VACUUM \\(?FULL|CLUSTER\\b|REINDEX (?!.*CONCURRENTLY)"
              + "|REFRESH MATERIALIZED VIEW (?!CONCURRENTLY))");

  private MigrationRules() {}

  /** What is wrong with {@code script}, one line each, naming the statement; empty when safe. */
  public static List<String> violations(Script script) {
    List<String> statements = statements(script.sql());
    Set<String> newTables = new HashSet<>();
    for (String statement : statements) {
      Matcher table = CREATE_TABLE.matcher(statement);
      if (table.find()) {
        newTables.add(unquoted(table.group(1)));
      }
    }
    List<String> violations = new ArrayList<>();
    Set<String> droppedFirst = new HashSet<>();
    for (String statement : statements) {
      List<String> wrong = new ArrayList<>();
      boolean concurrent = statement.contains(" CONCURRENTLY");
      if (concurrent && script.inTransaction()) {
        wrong.add(
            "CONCURRENTLY cannot run in a transaction: add "
                + script.name()
                + ".conf with executeInTransaction=false");
      }
      Matcher drop = DROP_INDEX_CONCURRENTLY.matcher(statement);
      if (drop.find()) {
        droppedFirst.add(unquoted(drop.group(1)));
      }
      Matcher index = CREATE_INDEX.matcher(statement);
      boolean indexStatement = drop.matches();
      if (index.find()) {
        indexStatement = index.group(1) != null;
        indexRules(index, newTables, droppedFirst, wrong);
      } else if (statement.startsWith("CREATE UNIQUE INDEX")
          || statement.startsWith("CREATE INDEX")) {
        wrong.add("an index needs a name and a table, so that a failed build can be dropped");
      }
      if (statement.startsWith("DROP INDEX") && !statement.startsWith("DROP INDEX CONCURRENTLY")) {
        wrong.add("DROP INDEX without CONCURRENTLY takes ACCESS EXCLUSIVE on the table");
      }
      if (!script.inTransaction() && !indexStatement) {
        wrong.add(
            "outside a transaction only CREATE INDEX CONCURRENTLY and DROP INDEX CONCURRENTLY IF"
                + " EXISTS: a failure would leave this script half applied");
      }
      Matcher alter = ALTER_TABLE.matcher(statement);
      if (alter.find() && !newTables.contains(unquoted(alter.group(1)))) {
        alterRules(statement, wrong);
      }
      Matcher changes = CHANGES_ROWS.matcher(statement);
      if (changes.find()
          && !newTables.contains(
              unquoted(changes.group(1) != null ? changes.group(1) : changes.group(2)))) {
        wrong.add(
            "UPDATE or DELETE of an existing table keeps its rows locked until the script commits:"
                + " backfill in batches from the application");
      }
      if (FORBIDDEN.matcher(statement).find()) {
        wrong.add("locks the table for as long as it runs");
      }
      for (String reason : wrong) {
        violations.add(script.name() + ": " + reason + ": " + statement);
      }
    }
    return violations;
  }

  private static void indexRules(
      Matcher index, Set<String> newTables, Set<String> droppedFirst, List<String> wrong) {
    boolean concurrent = index.group(1) != null;
    String name = index.group(3) == null ? null : unquoted(index.group(3));
    String table = unquoted(index.group(4));
    if (!concurrent && !newTables.contains(table)) {
      wrong.add(
          "CREATE INDEX on existing table "
              + table
              + " without CONCURRENTLY blocks its writes for the whole build");
    }
    if (name == null) {
      wrong.add("an index needs a name, so that a failed build can be dropped");
    }
    if (concurrent && index.group(2) != null) {
      wrong.add(
          "IF NOT EXISTS keeps the INVALID index a failed build leaves: drop it first instead");
    }
    if (concurrent && name != null && !droppedFirst.contains(name)) {
      wrong.add(
          "CREATE INDEX CONCURRENTLY "
              + name
              + " must follow DROP INDEX CONCURRENTLY IF EXISTS "
              + name
              + ", which removes what a failed build left");
    }
  }

  private static void alterRules(String statement, List<String> wrong) {
    if (VALIDATING_CONSTRAINT.matcher(statement).find() && !statement.contains(" NOT VALID")) {
      wrong.add(
          "a CHECK or FOREIGN KEY on an existing table reads every row under its lock: add it"
              + " NOT VALID, then VALIDATE CONSTRAINT in a later script");
    }
    if (INDEXING_CONSTRAINT.matcher(statement).find() && !statement.contains(" USING INDEX ")) {
      wrong.add(
          "PRIMARY KEY, UNIQUE or EXCLUDE builds an index under ACCESS EXCLUSIVE: build a unique"
              + " index concurrently first, then ADD CONSTRAINT ... USING INDEX");
    }
    if (statement.contains(" SET NOT NULL")) {
      wrong.add(
          "SET NOT NULL reads every row under ACCESS EXCLUSIVE: add a CHECK (col IS NOT NULL) NOT"
              + " VALID and validate it instead");
    }
    if (REWRITE.matcher(statement).find()) {
      wrong.add("rewrites the whole table under ACCESS EXCLUSIVE");
    }
  }

  /** The statements, upper case, one space between words, without comments or literals. */
  public static List<String> statements(String sql) {
    String stripped =
        sql.replaceAll("(?s)\\$(\\w*)\\$.*?\\$\\1\\$", "\\$\\$")
            .replaceAll("(?s)/\\*.*?\\*/", " ")
            .replaceAll("--[^\\n]*", " ")
            .replaceAll("'(?:[^']|'')*'", "''");
    List<String> statements = new ArrayList<>();
    for (String part : stripped.split(";")) {
      String statement = part.trim().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
      if (!statement.isEmpty()) {
        statements.add(statement);
      }
    }
    return statements;
  }

  private static String unquoted(String name) {
    String bare = name.replace("\"", "");
    return bare.contains(".") ? bare.substring(bare.indexOf('.') + 1) : bare;
  }
}
