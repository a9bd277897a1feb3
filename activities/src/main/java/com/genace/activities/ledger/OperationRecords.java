package com.genace.activities.ledger;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.workflows.model.RemoteStatus;
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

  /**
   * One page of {@code ops list}: optionally one phase and one account, created at least {@code
   * older than} ago (by the database clock), after the cursor operation in the listing's order,
   * newest or oldest first, one row more than the page so the caller knows whether more exist. The
   * optional filters fold away when unset (PostgreSQL plans each run with its values), so each
   * listing walks one index: {@code created_at}, the unfinished operations' {@code (phase,
   * created_at)} or the account's {@code (account, created_at)}.
   */
  private static final String LIST_PAGE =
      """
      SELECT * FROM app_generation_operations o
      WHERE %3$s
        AND o.account = coalesce(?::text, o.account)
        AND o.created_at <= clock_timestamp() - ?::interval
        AND (?::text IS NULL
             OR (o.created_at, o.operation_id) %2$s (SELECT c.created_at, c.operation_id
                                                     FROM app_generation_operations c
                                                     WHERE c.operation_id = ?))
      ORDER BY o.created_at %1$s, o.operation_id %1$s
      LIMIT ?
      """;

  private static final String ANY_PHASE = "true";
  private static final String UNFINISHED_PHASE = "o.phase = ? AND o.next_action <> 'none'";
  private static final String FINISHED_PHASE = "o.phase = ? AND o.next_action = 'none'";

  static final SqlStatement LIST = listPage("list", ANY_PHASE, ListOrder.NEWEST_FIRST);
  static final SqlStatement LIST_OLDEST =
      listPage("list_oldest", ANY_PHASE, ListOrder.OLDEST_FIRST);
  static final SqlStatement LIST_UNFINISHED_PHASE =
      listPage("list_unfinished_phase", UNFINISHED_PHASE, ListOrder.NEWEST_FIRST);
  static final SqlStatement LIST_UNFINISHED_PHASE_OLDEST =
      listPage("list_unfinished_phase_oldest", UNFINISHED_PHASE, ListOrder.OLDEST_FIRST);
  static final SqlStatement LIST_FINISHED_PHASE =
      listPage("list_finished_phase", FINISHED_PHASE, ListOrder.NEWEST_FIRST);
  static final SqlStatement LIST_FINISHED_PHASE_OLDEST =
      listPage("list_finished_phase_oldest", FINISHED_PHASE, ListOrder.OLDEST_FIRST);

  private static SqlStatement listPage(String name, String phaseFilter, ListOrder order) {
    boolean newest = order == ListOrder.NEWEST_FIRST;
    return SqlStatement.of(
        name, LIST_PAGE.formatted(newest ? "DESC" : "ASC", newest ? "<" : ">", phaseFilter));
  }

  OperationPage list(OperationQuery query) {
    boolean newest = query.order() == ListOrder.NEWEST_FIRST;
    SqlStatement statement;
    if (query.phase().isEmpty()) {
      statement = newest ? LIST : LIST_OLDEST;
    } else if (query.phase().get().isTerminal()) {
      statement = newest ? LIST_FINISHED_PHASE : LIST_FINISHED_PHASE_OLDEST;
    } else {
      statement = newest ? LIST_UNFINISHED_PHASE : LIST_UNFINISHED_PHASE_OLDEST;
    }
    List<OperationRow> rows =
        sql.query(
            statement,
            p -> {
              if (query.phase().isPresent()) {
                p.text(query.phase().get().wire()); // phase
              }
              p.text(query.account().orElse(null)) // account
                  .interval(query.olderThan()) // created at least this long ago
                  .text(query.after().orElse(null)) // cursor given?
                  .text(query.after().orElse(null)) // cursor operation_id
                  .integer(query.limit() + 1); // one more: are there more?
            },
            OperationRecords::row);
    boolean more = rows.size() > query.limit();
    return new OperationPage(more ? rows.subList(0, query.limit()) : rows, more);
  }

  /**
   * Counts every operation, terminal ones included: a full scan, for the demo's embedded database
   * only, never for a timer (see {@link LedgerStatistics}) or an operator's command ({@link
   * #COUNT_UNFINISHED}).
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

  /**
   * Counts the operations in one unfinished phase: a range scan of the unfinished index, whose size
   * is the work in flight, whatever the history.
   */
  static final SqlStatement COUNT_UNFINISHED =
      SqlStatement.of(
          "count_unfinished",
          """
          SELECT count(*) AS n FROM app_generation_operations
          WHERE next_action <> 'none' AND phase = ?
          """);

  long countUnfinished(Phase phase) {
    return sql.queryExactlyOne(
        COUNT_UNFINISHED,
        p -> p.text(phase.wire()), // phase
        rs -> rs.getLong("n"));
  }

  static final SqlStatement HISTORY =
      SqlStatement.of(
          "history", "SELECT * FROM app_generation_transitions WHERE operation_id = ? ORDER BY id");

  List<TransitionRow> history(String operationId) {
    return sql.query(HISTORY, p -> p.text(operationId), OperationRecords::transition);
  }

  /**
   * The remote job ids that denied writes carry: a dispatcher whose lease had run out when Genace
   * accepted its POST (its {@code accepted} was denied, the job exists all the same).
   */
  static final SqlStatement JOB_IDS_OF_DENIED_WRITES =
      SqlStatement.of(
          "job_ids_of_denied_writes",
          """
          SELECT details->>'remote_job_id' AS remote_job_id, min(id) AS first_id
          FROM app_generation_transitions
          WHERE operation_id = ? AND NOT accepted AND details->>'remote_job_id' IS NOT NULL
          GROUP BY 1 ORDER BY first_id
          """);

  List<String> jobIdsOfDeniedWrites(String operationId) {
    return sql.query(
        JOB_IDS_OF_DENIED_WRITES,
        p -> p.text(operationId), // operation_id
        rs -> rs.getString("remote_job_id"));
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
        rs.getString("account"),
        Sql.instant(rs, "phase_since"),
        Sql.instant(rs, "too_long_reported_at"),
        Sql.text(rs, "delivery_failure"),
        Sql.instant(rs, "delivery_failed_at"),
        Sql.instant(rs, "cancel_requested_at"),
        Sql.text(rs, "cancel_requested_by"),
        Sql.text(rs, "cancel_reason"),
        Optional.ofNullable((Boolean) rs.getObject("cancel_deliver_rendering")),
        Optional.ofNullable((Long) rs.getObject("credits")),
        Sql.instant(rs, "credits_committed_at"));
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
