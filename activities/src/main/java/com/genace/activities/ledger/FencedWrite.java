package com.genace.activities.ledger;

import com.genace.activities.db.Params;
import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.NextAction;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The lease fence and the statement shape of a fenced write, written once. A fenced write is one
 * statement that:
 *
 * <ol>
 *   <li>binds the lease ({@code args}): {@code operation_id}, {@code owner}, {@code revision}, the
 *       action when it is {@linkplain #actionOfTheLease() the lease's}, then the write's own {@link
 *       #args};
 *   <li>reads the row ({@code cur}) to tell a denied write (owner, revision, action or expiry no
 *       longer match: {@link #fence}) from one that is not permitted in the current phase;
 *   <li>updates the row ({@code upd}) only if the fence holds and the write is {@linkplain
 *       #permittedWhen permitted}; the fence is in the UPDATE's own WHERE, so a concurrent change
 *       is re-checked under the row lock;
 *   <li>appends the transition to the history ({@code log}: the {@link #event}), or a diagnostic
 *       row ({@code denied}: {@code lease} or {@code not_permitted}) when nothing changed;
 *   <li>returns found / fenced / applied / lease_until, as {@link FenceOutcome#read} reads them.
 * </ol>
 *
 * <p>A statement reads in one place with its name and its binder:
 *
 * <pre>{@code
 * static final SqlStatement RECORD_DELIVERED =
 *     FencedWrite.named("record_delivered")
 *         .action(NextAction.DELIVER)
 *         .args("details jsonb", "manifest jsonb")
 *         .moves(Transitions.DELIVERED_EVENT)
 *         .set("delivery_manifest = a.manifest, ...")
 *         .toStatement();
 * }</pre>
 *
 * <p>{@link #moves} takes the event, the phases it may leave and the {@code phase} and {@code
 * next_action} it sets from the table of {@link Transitions}; {@link #set} and {@link
 * #permittedWhen} add the write's own columns and conditions. A statement runs with {@link #write},
 * which binds the lease ({@link #bindLease}) before the write's own parameters.
 *
 * <p>In {@link #set}, {@link #permittedWhen} and the other fragments, {@code o} is the operation's
 * row and {@code a} the bound arguments; {@code cur} (in {@link #appliedOnlyIf} and {@link
 * #quietWhen}) is the row as the statement began. Statements of another shape (a plain renewal or
 * release, the lease-denied diagnostic) use {@link #fence} alone.
 */
final class FencedWrite {

  /**
   * The fence: the lease on row {@code o} is still {@code owner}'s, under {@code revision}, on
   * {@code action}, and unexpired by the database's wall clock ({@code clock_timestamp()}, not the
   * transaction start). Each argument is an SQL expression: {@code a.owner}, or {@code ?} in a
   * statement without an {@code args} row.
   */
  static String fence(String owner, String revision, String action) {
    return """
        o.lease_owner = %s AND o.revision = %s AND o.next_action = %s \
        AND o.lease_until > clock_timestamp()"""
        .formatted(owner, revision, action);
  }

  /** The args row's column of a statement fenced on the lease's action (a parameter). */
  private static final String LEASE_ACTION = "?::text AS action";

  /**
   * The lease on row {@code o} is free, or expired by the database's wall clock: no worker holds it
   * now. The one wording of it; {@link #leaseFreeOr} adds who else may go ahead.
   */
  static final String LEASE_FREE = "o.lease_until IS NULL OR o.lease_until <= clock_timestamp()";

  /** {@link #LEASE_FREE}, in parentheses, as one term of a WHERE. */
  static String leaseFree() {
    return "(" + LEASE_FREE + ")";
  }

  /** {@link #LEASE_FREE} or {@code alsoWhen} (such as the same owner's lease), as one term. */
  static String leaseFreeOr(String alsoWhen) {
    return "(" + LEASE_FREE + "\n     OR " + alsoWhen + ")";
  }

  /**
   * The lease's parameters, in the order every lease-fenced statement declares them: operation id,
   * owner, revision, and the action when {@code withAction} (a statement fenced on {@linkplain
   * #actionOfTheLease the lease's action}, a renewal, a release); the one place a lease is bound.
   */
  static Params bindLease(Params p, Lease lease, boolean withAction) throws SQLException {
    p.text(lease.operationId()) // operation_id
        .text(lease.owner()) // lease_owner
        .bigint(lease.revision()); // revision
    return withAction ? p.text(lease.action().wire()) : p; // next_action
  }

  /**
   * Runs a fenced write built here under {@code lease}: binds the lease ({@link #bindLease}, with
   * the action when the statement is {@linkplain #actionOfTheLease fenced on the lease's}) and then
   * {@code own}, the write's own parameters in the order of its {@link #args}.
   */
  static FenceOutcome write(Sql sql, SqlStatement statement, Lease lease, Sql.Binder own) {
    boolean withAction = statement.sql().contains(LEASE_ACTION);
    return sql.queryExactlyOne(
        statement, p -> own.bind(bindLease(p, lease, withAction)), FenceOutcome::read);
  }

  /**
   * Runs a write built {@link #atRevisionRead} on {@code operationId} as it was read at {@code
   * revision}; {@code owner} is who writes it, for the history row.
   */
  static FenceOutcome writeAtRevision(
      Sql sql,
      SqlStatement statement,
      String operationId,
      long revision,
      String owner,
      Sql.Binder own) {
    return sql.queryExactlyOne(
        statement,
        p -> own.bind(p.text(operationId).text(owner).bigint(revision)),
        FenceOutcome::read);
  }

  private static final Pattern WORD = Pattern.compile("[a-z][a-z_]*");
  private static final Pattern DECLARATION = Pattern.compile("[a-z][a-z_]* [a-z]+");

  private final String name;
  private boolean atRevisionRead;
  private String action;
  private NextAction fixedAction;
  private final List<String> args = new ArrayList<>();
  private final List<String> reading = new ArrayList<>();
  private String set;
  private String permittedWhen;
  private String event;
  private Transitions.Event transition;
  private String appliedOnlyIf;
  private String quietWhen;

  private FencedWrite(String name) {
    this.name = name;
  }

  /** A fenced write traced and counted as {@code name} (lower_snake_case, as the constant). */
  static FencedWrite named(String name) {
    return new FencedWrite(name);
  }

  /**
   * Fenced on this action: the write is only ever made under a lease on it. The action is a value
   * of the {@code args} row, not a literal in the UPDATE's WHERE: beside a literal phase in {@link
   * #permittedWhen}, a literal action lets the planner prove the unfinished index's predicate
   * ({@code next_action <> 'none'}) and walk every operation in that phase instead of taking the
   * row by its key (KeyedStatementPlansTest).
   */
  FencedWrite action(NextAction action) {
    fencedOn("a.action");
    this.fixedAction = action;
    return this;
  }

  /**
   * Fenced on whichever action the caller's lease is on, bound as the fourth parameter ({@code
   * action text}, after the revision: {@code lease.action().wire()}).
   */
  FencedWrite actionOfTheLease() {
    return fencedOn("a.action");
  }

  /**
   * Fenced by the revision a reader read and a free lease, not by a lease of the caller's: for a
   * write made from outside the operation's course (the orphan sweeper, a repair from Temporal's
   * history) that only goes ahead if nothing changed since the row was read and no worker holds it.
   * Binds operation id, owner (for the history) and revision; run with {@link #writeAtRevision}.
   */
  FencedWrite atRevisionRead() {
    atRevisionRead = true;
    return fencedOn("");
  }

  private FencedWrite fencedOn(String action) {
    if (this.action != null) {
      throw new IllegalStateException(name + ": the action is fenced once");
    }
    this.action = action;
    return this;
  }

  /**
   * The write's own parameters, bound after the lease in this order, each {@code "name type"}
   * ({@code "remote_job_id text"} binds {@code ?::text AS remote_job_id}, read as {@code
   * a.remote_job_id}). Must declare {@code details jsonb}: the history row's details.
   */
  FencedWrite args(String... declarations) {
    for (String declaration : declarations) {
      if (!DECLARATION.matcher(declaration).matches()) {
        throw new IllegalArgumentException(name + ": not a \"name type\" pair: " + declaration);
      }
      args.add(declaration);
    }
    return this;
  }

  /**
   * More columns of the row as the statement began, for {@link #appliedOnlyIf}/{@link #quietWhen}.
   */
  FencedWrite reading(String... columns) {
    reading.addAll(List.of(columns));
    return this;
  }

  /**
   * Makes the transition of {@code transition}: its event in the history, the phases it may leave
   * (before any {@link #permittedWhen}) and the {@code phase} and {@code next_action} it sets
   * (before any other column of {@link #set}).
   */
  FencedWrite moves(Transitions.Event transition) {
    event(transition.name());
    this.transition = transition;
    return this;
  }

  /**
   * The UPDATE's SET list (without {@code SET}); after {@link #moves}, the write's own columns
   * beside the phase and next action.
   */
  FencedWrite set(String assignments) {
    this.set = assignments;
    return this;
  }

  /**
   * When the transition is permitted (with the fence held): usually the phases it leaves, such as
   * {@code o.phase = 'pending'}. A fenced write refused by it leaves a {@code not_permitted} row.
   * Added in parentheses after the fence, so it can only narrow the write, whatever it contains.
   * After {@link #moves}, a condition besides the phases the transition leaves.
   */
  FencedWrite permittedWhen(String condition) {
    this.permittedWhen = condition;
    return this;
  }

  /** The history row's {@code event}. */
  FencedWrite event(String event) {
    if (!WORD.matcher(event).matches()) {
      throw new IllegalArgumentException(name + ": event must be lower_snake_case: " + event);
    }
    this.event = event;
    return this;
  }

  /**
   * Counts an update as applied (and its history row as accepted) only where {@code condition} held
   * on the row as the statement began, as well as on the row it locked. Added in parentheses, as
   * {@link #permittedWhen} is.
   */
  FencedWrite appliedOnlyIf(String condition) {
    this.appliedOnlyIf = condition;
    return this;
  }

  /** Leaves no history row at all when {@code condition} holds (a quiet no-op). */
  FencedWrite quietWhen(String condition) {
    this.quietWhen = condition;
    return this;
  }

  SqlStatement toStatement() {
    Objects.requireNonNull(action, () -> name + ": no action to fence on");
    String set = this.set;
    String permittedWhen = this.permittedWhen;
    if (transition != null) {
      set = set == null ? transition.set() : transition.set() + ",\n" + set.strip();
      permittedWhen =
          transition.permittedWhen()
              + (permittedWhen == null ? "" : " AND " + alone(permittedWhen));
    }
    Objects.requireNonNull(set, () -> name + ": nothing to set");
    Objects.requireNonNull(permittedWhen, () -> name + ": no condition that permits the write");
    Objects.requireNonNull(event, () -> name + ": no event for the history");
    if (!args.contains("details jsonb")) {
      throw new IllegalStateException(name + ": the history row's details jsonb is not bound");
    }
    String fence =
        atRevisionRead
            ? "o.revision = a.revision AND " + leaseFree()
            : fence("a.owner", "a.revision", action);
    String applied = "upd.phase IS NOT NULL" + and(appliedOnlyIf);
    String appliedFilter =
        appliedOnlyIf == null ? "" : " CROSS JOIN cur WHERE " + alone(appliedOnlyIf);
    StringBuilder sql = new StringBuilder();
    sql.append("WITH args AS (\n")
        .append("  SELECT ")
        .append(fill(bound(), "         "))
        .append("\n),\n")
        .append("cur AS (\n")
        .append("  SELECT ")
        .append(String.join(",\n         ", read(fence)))
        .append(
            "\n  FROM app_generation_operations o JOIN args a ON o.operation_id = a.operation_id\n")
        .append("),\n")
        .append("upd AS (\n")
        .append("  UPDATE app_generation_operations o\n")
        .append(indent(set, "  SET ", "      "))
        .append("  FROM args a\n")
        .append("  WHERE o.operation_id = a.operation_id\n")
        .append("    AND ")
        .append(fence)
        .append('\n')
        .append(indent(alone(permittedWhen), "    AND ", "        "))
        .append("  RETURNING o.phase\n")
        .append("),\n")
        .append("log AS (\n")
        .append("  INSERT INTO app_generation_transitions\n")
        .append(
            "      (operation_id, revision, owner, event, from_phase, to_phase, accepted, details)\n")
        .append("  SELECT a.operation_id, a.revision, a.owner, '")
        .append(event)
        .append("', cur.phase, upd.phase,\n")
        .append("         ")
        .append(applied)
        .append(",\n")
        .append("         CASE WHEN ")
        .append(applied)
        .append(" THEN a.details\n")
        .append(
            "              WHEN cur.fenced THEN a.details || '{\"denied\": \"not_permitted\"}'\n")
        .append("              ELSE a.details || '{\"denied\": \"lease\"}' END\n")
        .append("  FROM args a CROSS JOIN cur LEFT JOIN upd ON true\n");
    if (quietWhen != null) {
      sql.append(indent("NOT " + alone(quietWhen), "  WHERE ", "        "));
    }
    sql.append(")\n")
        .append("SELECT (SELECT count(*) FROM cur) AS found,\n")
        .append("       coalesce((SELECT fenced FROM cur), false) AS fenced,\n")
        .append("       (SELECT count(*) FROM upd")
        .append(appliedFilter)
        .append(") AS applied,\n")
        .append("       NULL::timestamptz AS lease_until\n");
    return SqlStatement.of(name, sql.toString());
  }

  /** The {@code args} row's columns, in binding order. */
  private List<String> bound() {
    List<String> columns = new ArrayList<>();
    columns.add("?::text AS operation_id");
    columns.add("?::text AS owner");
    columns.add("?::bigint AS revision");
    if (atRevisionRead) {
      // no action: the fence is the revision read and a free lease
    } else if (fixedAction != null) {
      columns.add("'" + fixedAction.wire() + "'::text AS action");
    } else {
      columns.add(LEASE_ACTION);
    }
    for (String declaration : args) {
      String[] nameAndType = declaration.split(" ");
      columns.add("?::" + nameAndType[1] + " AS " + nameAndType[0]);
    }
    return columns;
  }

  private List<String> read(String fence) {
    List<String> columns = new ArrayList<>();
    columns.add("o.phase");
    columns.add("(" + fence + ") AS fenced");
    for (String column : reading) {
      columns.add(column.strip().replace("\n", "\n         "));
    }
    return columns;
  }

  /** {@code items} joined by commas, a line broken before an item that would pass 90 columns. */
  private static String fill(List<String> items, String continuation) {
    StringBuilder out = new StringBuilder();
    int column = continuation.length();
    for (int i = 0; i < items.size(); i++) {
      String item = items.get(i) + (i < items.size() - 1 ? "," : "");
      if (i > 0 && column + 1 + item.length() > 90) {
        out.append('\n').append(continuation);
        column = continuation.length();
      } else if (i > 0) {
        out.append(' ');
        column++;
      }
      out.append(item);
      column += item.length();
    }
    return out.toString();
  }

  private static String and(String condition) {
    return condition == null ? "" : " AND " + alone(condition);
  }

  /**
   * A caller's condition in parentheses, so that it is one term wherever it is added: unbracketed,
   * an {@code OR} in it would bind looser than the fence's {@code AND}s around it ({@code fence AND
   * x OR y} is {@code (fence AND x) OR y}), and a row that only {@code y} matches would be written,
   * or counted as applied, whoever holds its lease.
   */
  private static String alone(String condition) {
    return "(" + condition.strip() + ")";
  }

  /** {@code text}'s lines, the first after {@code first}, the others after {@code rest}. */
  private static String indent(String text, String first, String rest) {
    StringBuilder out = new StringBuilder();
    String[] lines = text.strip().split("\n");
    for (int i = 0; i < lines.length; i++) {
      out.append(i == 0 ? first : rest).append(lines[i].stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
