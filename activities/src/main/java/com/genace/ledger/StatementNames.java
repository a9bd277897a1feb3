package com.genace.ledger;

import java.util.Map;

/**
 * What each ledger statement does, for span names: the SQL text is long and its first words ({@code
 * WITH args AS ...}) say nothing. A statement missing here is named by its first keyword.
 */
final class StatementNames {

  private StatementNames() {}

  private static final Map<String, String> NAMES =
      Map.ofEntries(
          Map.entry(LedgerStatements.CREATE, "create"),
          Map.entry(LedgerStatements.CLAIM, "claim"),
          Map.entry(LedgerStatements.DIVERT_TO_REVIEW, "divert_to_review"),
          Map.entry(LedgerStatements.FIND, "find"),
          Map.entry(LedgerStatements.LIST, "list"),
          Map.entry(LedgerStatements.COUNT_BY_PHASE, "count_by_phase"),
          Map.entry(LedgerStatements.HISTORY, "history"),
          Map.entry(LedgerStatements.MARK_SUBMITTING.sql(), "mark_submitting"),
          Map.entry(LedgerStatements.RECORD_ACCEPTED.sql(), "record_accepted"),
          Map.entry(LedgerStatements.RECORD_NOT_SENT.sql(), "record_not_sent"),
          Map.entry(LedgerStatements.RECORD_REFUSED.sql(), "record_refused"),
          Map.entry(LedgerStatements.OPEN_REVIEW.sql(), "open_review"),
          Map.entry(LedgerStatements.RESOLVE_REVIEW.sql(), "resolve_review"),
          Map.entry(LedgerStatements.RECORD_SNAPSHOT.sql(), "record_snapshot"),
          Map.entry(LedgerStatements.RECORD_DELIVERED.sql(), "record_delivered"),
          Map.entry(LedgerStatements.RELEASE.sql(), "release"),
          Map.entry(LedgerStatements.RENEW.sql(), "renew"));

  /** The statement's name, or its first keyword in lower case when it has none. */
  static String of(String sql) {
    String name = NAMES.get(sql);
    if (name != null) {
      return name;
    }
    String trimmed = sql.strip();
    int end = 0;
    while (end < trimmed.length() && Character.isLetter(trimmed.charAt(end))) {
      end++;
    }
    return end == 0 ? "statement" : trimmed.substring(0, end).toLowerCase(java.util.Locale.ROOT);
  }
}
