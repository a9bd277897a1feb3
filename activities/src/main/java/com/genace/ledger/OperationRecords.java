package com.genace.ledger;

import com.genace.db.Sql;
import com.genace.db.SqlStatement;
import com.genace.model.NextAction;
import com.genace.model.Phase;
import com.genace.model.RemoteStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Creating operations and reading them back; none of these needs a lease. */
final class OperationRecords {

  private final Sql sql;

  OperationRecords(Sql sql) {
    this.sql = sql;
  }

  /** Idempotent by operation id: a second create of the same id inserts nothing. */
  static final SqlStatement CREATE =
      SqlStatement.of(
          "create",
          """
          WITH ins AS (
            INSERT INTO app_generation_operations
                (operation_id, phase, next_action, model, request, account)
            VALUES (?, 'pending', 'dispatch', ?, ?::jsonb, ?)
            ON CONFLICT (operation_id) DO NOTHING
            RETURNING operation_id
          ),
          log AS (
            INSERT INTO app_generation_transitions
                (operation_id, revision, event, from_phase, to_phase, accepted)
            SELECT operation_id, 0, 'created', NULL, 'pending', true FROM ins
          )
          SELECT count(*) AS created FROM ins
          """);

  boolean create(NewOperation operation, String inputJson) {
    return sql.queryExactlyOne(
            CREATE,
            p ->
                p.text(operation.operationId()) // operation_id
                    .text(operation.model()) // model
                    .json(inputJson) // request
                    .text(operation.account()), // account
            rs -> rs.getLong("created"))
        == 1;
  }

  static final SqlStatement FIND =
      SqlStatement.of("find", "SELECT * FROM app_generation_operations WHERE operation_id = ?");

  Optional<OperationRow> find(String operationId) {
    return sql.queryOne(FIND, p -> p.text(operationId), OperationRecords::row);
  }

  /** Newest first, by the index on {@code created_at}. */
  static final SqlStatement LIST =
      SqlStatement.of(
          "list",
          """
          SELECT * FROM app_generation_operations
          ORDER BY created_at DESC, operation_id
          LIMIT ?
          """);

  /**
   * A phase that still has work ahead, by the partial index over unfinished operations (its size is
   * the work in flight, not the history).
   */
  static final SqlStatement LIST_UNFINISHED_PHASE =
      SqlStatement.of(
          "list_unfinished_phase",
          """
          SELECT * FROM app_generation_operations
          WHERE phase = ? AND next_action <> 'none'
          ORDER BY created_at DESC, operation_id
          LIMIT ?
          """);

  /** A terminal phase: walks the {@code created_at} index newest first until the limit. */
  static final SqlStatement LIST_FINISHED_PHASE =
      SqlStatement.of(
          "list_finished_phase",
          """
          SELECT * FROM app_generation_operations
          WHERE phase = ? AND next_action = 'none'
          ORDER BY created_at DESC, operation_id
          LIMIT ?
          """);

  List<OperationRow> list(Optional<Phase> phase, int limit) {
    if (phase.isEmpty()) {
      return sql.query(LIST, p -> p.integer(limit), OperationRecords::row);
    }
    SqlStatement statement = phase.get().isTerminal() ? LIST_FINISHED_PHASE : LIST_UNFINISHED_PHASE;
    return sql.query(
        statement,
        p ->
            p.text(phase.get().wire()) // phase
                .integer(limit),
        OperationRecords::row);
  }

  /**
   * Counts every operation, terminal ones included: a full scan, for tools that run it once (the
   * demo's summary), never for a timer (see {@link LedgerStatistics}).
   */
  static final SqlStatement COUNT_BY_PHASE =
      SqlStatement.of(
          "count_by_phase",
          "SELECT phase, count(*) AS n FROM app_generation_operations GROUP BY phase");

  Map<Phase, Long> countByPhase() {
    Map<Phase, Long> counts = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      counts.put(phase, 0L);
    }
    sql.query(
        COUNT_BY_PHASE,
        Sql.Binder.NONE,
        rs -> counts.put(Phase.parse(rs.getString("phase")), rs.getLong("n")));
    return counts;
  }

  static final SqlStatement HISTORY =
      SqlStatement.of(
          "history", "SELECT * FROM app_generation_transitions WHERE operation_id = ? ORDER BY id");

  List<TransitionRow> history(String operationId) {
    return sql.query(HISTORY, p -> p.text(operationId), OperationRecords::transition);
  }

  static OperationRow row(ResultSet rs) throws SQLException {
    return new OperationRow(
        rs.getString("operation_id"),
        Phase.parse(rs.getString("phase")),
        NextAction.parse(rs.getString("next_action")),
        Sql.text(rs, "remote_job_id"),
        Sql.text(rs, "lease_owner"),
        Sql.instant(rs, "lease_until"),
        rs.getLong("revision"),
        rs.getString("model"),
        rs.getString("request"),
        Sql.text(rs, "remote_status").map(RemoteStatus::parse),
        Sql.text(rs, "remote_snapshot"),
        Sql.instant(rs, "remote_observed_at"),
        rs.getInt("dispatch_attempts"),
        Sql.instant(rs, "submitting_since"),
        Sql.text(rs, "dispatch_outcome"),
        Sql.text(rs, "dispatch_detail"),
        Sql.text(rs, "review_reason"),
        Sql.instant(rs, "review_opened_at"),
        Sql.text(rs, "review_resolution"),
        Sql.text(rs, "review_resolved_by"),
        Sql.instant(rs, "review_resolved_at"),
        Sql.text(rs, "review_note"),
        Sql.text(rs, "delivery_manifest"),
        Sql.text(rs, "failure_reason"),
        Sql.instant(rs, "created_at").orElseThrow(),
        Sql.instant(rs, "updated_at").orElseThrow(),
        rs.getString("account"));
  }

  static TransitionRow transition(ResultSet rs) throws SQLException {
    return new TransitionRow(
        rs.getLong("id"),
        rs.getString("operation_id"),
        rs.getLong("revision"),
        Sql.text(rs, "owner"),
        rs.getString("event"),
        Sql.text(rs, "from_phase"),
        Sql.text(rs, "to_phase"),
        rs.getBoolean("accepted"),
        rs.getString("details"),
        Sql.instant(rs, "at").orElseThrow());
  }
}
