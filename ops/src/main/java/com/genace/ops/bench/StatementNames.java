package com.genace.ops.bench;

import com.genace.activities.db.SqlStatement;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The name a statement the database saw is known by ({@code claim_to_submit}, {@code lock_scopes},
 * ...): its text, as {@code pg_stat_activity} or {@code pg_stat_statements} show it, matched with
 * the {@link SqlStatement} constants of the classes that run the worker's statements. A text that
 * matches none (a statement added since, or another client's) is named by its first words.
 */
final class StatementNames {

  /** Where the worker's statements are declared; a class that is gone is skipped. */
  private static final List<String> HOLDERS =
      List.of(
          "com.genace.activities.ledger.OperationRecords",
          "com.genace.activities.ledger.Claims",
          "com.genace.activities.ledger.LeaseWrites",
          "com.genace.activities.ledger.FencedWrite",
          "com.genace.activities.ledger.DispatchWrites",
          "com.genace.activities.ledger.RemoteJobWrites",
          "com.genace.activities.ledger.ObservationWrites",
          "com.genace.activities.ledger.PollSchedule",
          "com.genace.activities.ledger.ReviewWrites",
          "com.genace.activities.ledger.ReviewEvidenceRecords",
          "com.genace.activities.ledger.LifecycleWrites",
          "com.genace.activities.ledger.LedgerStatistics",
          "com.genace.activities.ledger.OperationSelections",
          "com.genace.activities.ledger.SweepCursors",
          "com.genace.activities.ledger.WaitingTooLong",
          "com.genace.activities.ledger.LedgerRetention",
          "com.genace.activities.ledger.SpendReport",
          "com.genace.activities.allowance.DispatchAllowance",
          "com.genace.activities.controls.WorkerControls",
          "com.genace.worker.fleet.FleetConfiguration");

  private static final int SHORT_TEXT = 60;

  private final Map<String, String> byText;

  private StatementNames(Map<String, String> byText) {
    this.byText = byText;
  }

  static StatementNames load() {
    List<SqlStatement> statements = new ArrayList<>();
    for (String holder : HOLDERS) {
      Class<?> type;
      try {
        type = Class.forName(holder);
      } catch (ClassNotFoundException gone) {
        continue;
      }
      for (Field field : type.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getType() == SqlStatement.class) {
          try {
            field.setAccessible(true);
            statements.add((SqlStatement) field.get(null));
          } catch (ReflectiveOperationException | RuntimeException unreadable) {
            // Named by its first words instead.
          }
        }
      }
    }
    return of(statements);
  }

  static StatementNames of(List<SqlStatement> statements) {
    Map<String, String> byText = new HashMap<>();
    for (SqlStatement statement : statements) {
      byText.put(normalized(statement.sql()), statement.name());
    }
    return new StatementNames(byText);
  }

  /** The names it knows. */
  Set<String> known() {
    return new HashSet<>(byText.values());
  }

  /**
   * The statement's name, or when it is none of the worker's its first words and a hash of the
   * whole (statements that begin alike stay apart).
   */
  String name(String text) {
    if (text == null || text.isBlank()) {
      return "(none)";
    }
    String normalized = normalized(text);
    String name = byText.get(normalized);
    if (name != null) {
      return name;
    }
    String words = text.replaceAll("\\s+", " ").trim();
    return words.length() <= SHORT_TEXT
        ? words
        : words.substring(0, SHORT_TEXT) + "... #" + Integer.toHexString(normalized.hashCode());
  }

  /**
   * The text as {@code pg_stat_statements} and the driver both reduce to it: every placeholder
   * ({@code ?}, {@code $1}) and every constant (a string, a number, {@code true}, {@code false},
   * {@code NULL}, a number with its unary minus, {@code EXTRACT}'s field), which {@code
   * pg_stat_statements} shows as placeholders, as {@code ?}, and every run of white space as one
   * space.
   */
  static String normalized(String sql) {
    return sql.replaceAll("'(?:[^']|'')*'", "?")
        .replaceAll("\\$\\d+", "?")
        .replaceAll("(?i)\\b(?:true|false|null)\\b", "?")
        // A minus after an opening parenthesis, a comma or a comparison is unary: PostgreSQL folds
        // it into the constant (coalesce(x, -1) shows as coalesce(x, $1)).
        .replaceAll("([(,=<>]\\s*)-\\s*\\d+(?:\\.\\d+)?\\b", "$1?")
        .replaceAll("\\b\\d+(?:\\.\\d+)?\\b", "?")
        .replaceAll("(?i)\\b(extract\\(\\s*)\\w+(\\s+from)\\b", "$1?$2")
        .replaceAll("\\s+", " ")
        .trim();
  }
}
