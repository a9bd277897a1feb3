package com.genace.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.db.SqlStatement;
import com.genace.model.NextAction;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The fenced write's shape as the builder produces it, without a database: the statements that run
 * it are guarded by the ledger's tests (LeaseFencingTest, LeaseSafetyPropertyTest and the others).
 */
class FencedWriteTest {

  private static final String FENCE_ON_DELIVER =
      "o.lease_owner = a.owner AND o.revision = a.revision AND o.next_action = 'deliver'"
          + " AND o.lease_until > clock_timestamp()";

  private static SqlStatement delivered() {
    return FencedWrite.named("record_delivered")
        .action(NextAction.DELIVER)
        .args("details jsonb", "manifest jsonb")
        .set(
            """
            phase = 'delivered', next_action = 'none', delivery_manifest = a.manifest,
            lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
            """)
        .permittedWhen("o.phase = 'delivering'")
        .event("delivered")
        .toStatement();
  }

  /** White space of any length as one space: the statement as PostgreSQL parses it. */
  private static String flat(String sql) {
    return sql.replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")").trim();
  }

  private static int count(String text, String part) {
    int found = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      found++;
    }
    return found;
  }

  /** The text of CTE {@code name}, up to the next CTE or the final SELECT. */
  private static String cte(String sql, String name) {
    Matcher m =
        Pattern.compile(name + " AS \\((.*?)\\),? (?:[a-z]+ AS \\(|SELECT \\(SELECT)")
            .matcher(flat(sql));
    assertThat(m.find()).as("CTE " + name).isTrue();
    return m.group(1);
  }

  @Test
  void the_fence_is_written_once_in_the_read_of_the_row_and_once_in_the_update() {
    String sql = delivered().sql();

    assertThat(count(flat(sql), FENCE_ON_DELIVER)).isEqualTo(2);
    assertThat(cte(sql, "cur")).contains("(" + FENCE_ON_DELIVER + ") AS fenced");
    assertThat(cte(sql, "upd"))
        .contains(
            "WHERE o.operation_id = a.operation_id AND "
                + FENCE_ON_DELIVER
                + " AND o.phase = 'delivering' RETURNING o.phase");
    assertThat(count(flat(sql), "clock_timestamp()")).isEqualTo(3); // the fence twice, updated_at
  }

  @Test
  void the_fence_alone_is_the_clause_the_statements_share() {
    assertThat(FencedWrite.fence("a.owner", "a.revision", "'deliver'")).isEqualTo(FENCE_ON_DELIVER);
    assertThat(FencedWrite.fence("?", "?", "?"))
        .isEqualTo(
            "o.lease_owner = ? AND o.revision = ? AND o.next_action = ?"
                + " AND o.lease_until > clock_timestamp()");
  }

  @Test
  void the_lease_is_bound_first_then_the_writes_own_arguments_in_order() {
    String args = cte(delivered().sql(), "args");

    assertThat(args)
        .isEqualTo(
            "SELECT ?::text AS operation_id, ?::text AS owner, ?::bigint AS revision,"
                + " ?::jsonb AS details, ?::jsonb AS manifest");
  }

  @Test
  void a_write_under_the_callers_lease_binds_its_action_after_the_revision_and_fences_on_it() {
    String sql =
        FencedWrite.named("cancel")
            .actionOfTheLease()
            .args("details jsonb", "failure_reason text")
            .set("phase = 'abandoned'")
            .permittedWhen("o.phase IN ('pending', 'observing')")
            .event("cancelled")
            .toStatement()
            .sql();

    assertThat(cte(sql, "args"))
        .contains("?::bigint AS revision, ?::text AS action, ?::jsonb AS details,");
    assertThat(count(flat(sql), "o.next_action = a.action AND o.lease_until > clock_timestamp()"))
        .isEqualTo(2);
    assertThat(count(sql, "?")).isEqualTo(6);
  }

  @Test
  void the_history_row_is_the_transition_or_says_why_it_was_denied() {
    String log = cte(delivered().sql(), "log");

    assertThat(log)
        .contains(
            "SELECT a.operation_id, a.revision, a.owner, 'delivered', cur.phase, upd.phase,"
                + " upd.phase IS NOT NULL,"
                + " CASE WHEN upd.phase IS NOT NULL THEN a.details"
                + " WHEN cur.fenced THEN a.details || '{\"denied\": \"not_permitted\"}'"
                + " ELSE a.details || '{\"denied\": \"lease\"}' END"
                + " FROM args a CROSS JOIN cur LEFT JOIN upd ON true")
        .doesNotContain("WHERE");
  }

  @Test
  void it_returns_what_a_fence_outcome_reads() {
    assertThat(flat(delivered().sql()))
        .endsWith(
            "SELECT (SELECT count(*) FROM cur) AS found,"
                + " coalesce((SELECT fenced FROM cur), false) AS fenced,"
                + " (SELECT count(*) FROM upd) AS applied,"
                + " NULL::timestamptz AS lease_until");
  }

  @Test
  void a_write_applied_only_on_a_condition_of_the_row_counts_and_logs_by_it() {
    String sql =
        FencedWrite.named("record_snapshot")
            .action(NextAction.OBSERVE)
            .args("details jsonb", "status text")
            .reading("o.remote_status", "(o.phase = 'observing') AS newer")
            .set("remote_status = a.status")
            .permittedWhen("o.phase = 'observing'")
            .event("snapshot")
            .appliedOnlyIf("cur.newer")
            .quietWhen("cur.fenced AND NOT cur.newer")
            .toStatement()
            .sql();

    assertThat(cte(sql, "cur"))
        .contains("AS fenced, o.remote_status, (o.phase = 'observing') AS newer");
    assertThat(cte(sql, "log"))
        .contains("upd.phase, upd.phase IS NOT NULL AND cur.newer, CASE WHEN")
        .contains("CASE WHEN upd.phase IS NOT NULL AND cur.newer THEN a.details")
        .endsWith("LEFT JOIN upd ON true WHERE NOT (cur.fenced AND NOT cur.newer)");
    assertThat(flat(sql))
        .contains("(SELECT count(*) FROM upd CROSS JOIN cur WHERE cur.newer) AS applied");
  }

  @Test
  void every_fenced_write_of_the_ledger_binds_as_many_parameters_as_it_declares() {
    for (SqlStatement statement :
        List.of(
            DispatchWrites.MARK_SUBMITTING,
            DispatchWrites.RECORD_ACCEPTED,
            DispatchWrites.RECORD_NOT_SENT,
            DispatchWrites.RECORD_REFUSED,
            RemoteJobWrites.RECORD_SNAPSHOT,
            RemoteJobWrites.RECORD_DELIVERED,
            ReviewWrites.OPEN_REVIEW,
            ReviewWrites.RESOLVE_REVIEW,
            LifecycleWrites.CANCEL)) {
      String sql = flat(statement.sql());
      assertThat(count(sql, "?"))
          .as(statement.name())
          .isEqualTo(count(cte(statement.sql(), "args"), "?"))
          .isGreaterThanOrEqualTo(4);
      assertThat(count(sql, "AND o.lease_until > clock_timestamp()"))
          .as(statement.name() + ": the fence in cur and in upd")
          .isEqualTo(2);
    }
  }

  @Test
  void an_incomplete_write_is_refused_when_it_is_built() {
    assertThatThrownBy(
            () ->
                FencedWrite.named("no_details")
                    .action(NextAction.DISPATCH)
                    .args("detail text")
                    .set("phase = 'pending'")
                    .permittedWhen("o.phase = 'submitting'")
                    .event("not_sent")
                    .toStatement())
        .hasMessageContaining("details jsonb");
    assertThatThrownBy(
            () ->
                FencedWrite.named("no_action")
                    .args("details jsonb")
                    .set("phase = 'pending'")
                    .permittedWhen("o.phase = 'submitting'")
                    .event("not_sent")
                    .toStatement())
        .hasMessageContaining("no action");
    assertThatThrownBy(
            () -> FencedWrite.named("twice").action(NextAction.DISPATCH).actionOfTheLease())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> FencedWrite.named("bad").args("details"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FencedWrite.named("bad").event("it's"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
