package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.db.SqlStatement;
import com.genace.activities.ledger.Transitions.Edge;
import com.genace.activities.ledger.Transitions.Event;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.util.PSQLException;

/**
 * The table of {@link Transitions}, the row rules' trigger and the diagram "The operation's course"
 * of docs/architecture.md say the same: a change to any one of them alone fails here.
 *
 * <ul>
 *   <li>table ↔ trigger, on the real PostgreSQL: every phase goes with exactly its own next action
 *       (the trigger refuses every other), and each event's own update ({@code SET} and the phases
 *       it may leave, as the statements take them from the table), run on a row in each phase,
 *       moves exactly the table's edges and nothing the trigger refuses;
 *   <li>table ↔ statements: each statement that makes an event carries the table's phases;
 *   <li>table ↔ diagram: the diagram's {@code from --> to} edges are the table's, but for the two
 *       that are no event of the ledger (the start, and the pause in which nothing is written).
 * </ul>
 */
@ExtendWith(DatabaseExtension.class)
class TransitionTableTest {

  private static final Path ARCHITECTURE = Path.of("..", "docs", "architecture.md");

  /**
   * The diagram's edges that are no event of the ledger, and so no row of the table: the
   * operation's start (the row is created in {@code pending}, event {@code created}), and a
   * dispatch paused or draining, which claims and writes nothing.
   */
  private static final Set<String> DIAGRAM_ONLY = Set.of("[*] --> pending", "pending --> pending");

  /**
   * What chooses among an event's moves: the arguments its statements bind ({@code a.status} for a
   * snapshot, {@code a.decision} for a resolution, {@code a.ended} for a repair), every value they
   * may take. An event without a condition is tried once.
   */
  private static final List<Map<String, String>> ARGUMENTS =
      List.of(
          Map.of("status", "queued", "decision", "found_remote_job", "ended", "delivered"),
          Map.of("status", "running", "decision", "not_submitted", "ended", "failed"),
          Map.of("status", "succeeded", "decision", "abandon", "ended", "abandoned"),
          Map.of("status", "failed", "decision", "abandon", "ended", "abandoned"),
          Map.of("status", "canceled", "decision", "abandon", "ended", "abandoned"));

  private DataSource db;

  @BeforeEach
  void setUp(DataSource db) {
    this.db = db;
  }

  @Test
  void the_trigger_takes_each_phase_with_exactly_its_next_action() throws SQLException {
    insert("op-pair", Phase.PENDING);
    SoftAssertions softly = new SoftAssertions();
    for (Phase phase : Phase.values()) {
      for (NextAction action : NextAction.values()) {
        boolean accepted = tryUpdate("op-pair", phase.wire(), action.wire());
        softly
            .assertThat(accepted)
            .as("trigger on phase %s with next_action %s", phase.wire(), action.wire())
            .isEqualTo(action == phase.nextAction());
      }
    }
    softly.assertAll();
  }

  @Test
  void each_event_moves_exactly_the_table_s_edges_and_the_trigger_takes_them() throws SQLException {
    SoftAssertions softly = new SoftAssertions();
    for (Event event : Transitions.ALL) {
      Set<Edge> moved = new LinkedHashSet<>();
      for (Phase from : Phase.values()) {
        for (Map<String, String> arguments : ARGUMENTS) {
          String id = "op-" + event.name() + "-" + from.wire();
          reset(id, from);
          Phase after = apply(event, id, arguments);
          if (after != null) {
            moved.add(new Edge(from, after));
          } else {
            softly
                .assertThat(event.leaves())
                .as("%s refused a row in %s", event.name(), from.wire())
                .doesNotContain(from);
          }
        }
      }
      softly.assertThat(moved).as(event.name()).isEqualTo(event.edges());
    }
    softly.assertAll();
  }

  @Test
  void the_statements_take_their_phases_from_the_table() {
    Map<SqlStatement, Event> statements =
        Map.ofEntries(
            Map.entry(DispatchWrites.MARK_SUBMITTING, Transitions.SUBMITTING_EVENT),
            Map.entry(Claims.CLAIM_TO_SUBMIT, Transitions.SUBMITTING_EVENT),
            Map.entry(DispatchWrites.RECORD_ACCEPTED, Transitions.ACCEPTED),
            Map.entry(DispatchWrites.RECORD_NOT_SENT, Transitions.NOT_SENT),
            Map.entry(DispatchWrites.RECORD_REFUSED, Transitions.REFUSED),
            Map.entry(ReviewWrites.OPEN_REVIEW, Transitions.REVIEW_OPENED),
            Map.entry(RemoteJobWrites.RECORD_SNAPSHOT, Transitions.SNAPSHOT),
            Map.entry(ObservationWrites.RECORD_OBSERVED_SNAPSHOT, Transitions.SNAPSHOT),
            Map.entry(RemoteJobWrites.RECORD_DELIVERED, Transitions.DELIVERED_EVENT),
            Map.entry(LifecycleWrites.CANCEL, Transitions.CANCELLED),
            Map.entry(ReviewWrites.RESOLVE_REVIEW, Transitions.REVIEW_RESOLVED),
            Map.entry(RepairWrites.RECOVER_OBSERVING, Transitions.RECOVERED),
            Map.entry(RepairWrites.RECOVER_END, Transitions.RECOVERED_END));
    statements.forEach(
        (statement, event) ->
            assertThat(flat(statement.sql()))
                .as(statement.name())
                .contains(flat(event.permittedWhen()))
                .contains(flat(event.set()))
                .contains("'" + event.name() + "'"));
    // The sweeper says "every unfinished phase" as next_action <> 'none' (the same rows, by the
    // trigger), and the claim that diverts to review leaves two of the phases review_opened leaves.
    assertThat(Transitions.WORKFLOW_CLOSED.leaves())
        .isEqualTo(
            EnumSet.copyOf(
                java.util.Arrays.stream(Phase.values()).filter(p -> !p.isTerminal()).toList()));
    assertThat(flat(LifecycleWrites.SWEEP_TO_REVIEW.sql()))
        .contains("o.next_action <> 'none'")
        .contains(flat(Transitions.WORKFLOW_CLOSED.set()));
    assertThat(Transitions.REVIEW_OPENED.leaves()).contains(Phase.SUBMITTING, Phase.OBSERVING);
    assertThat(flat(Claims.EXPLAIN_OR_DIVERT.sql()))
        .contains(flat(Transitions.REVIEW_OPENED.set()));
  }

  @Test
  void the_diagram_draws_the_table_s_edges() throws IOException {
    String markdown = Files.readString(ARCHITECTURE);
    Set<String> drawn = diagramEdges(markdown, 0);
    assertThat(drawn).as("the diagram's edges that are no event").containsAll(DIAGRAM_ONLY);
    Set<String> events =
        drawn.stream().filter(e -> !DIAGRAM_ONLY.contains(e)).collect(Collectors.toSet());
    List<Event> course =
        Transitions.ALL.stream().filter(e -> !Transitions.REPAIRS.contains(e)).toList();
    assertThat(events).as("diagram edges, the table's").isEqualTo(changes(course));
    assertThat(diagramEdges(markdown, 1))
        .as("the repairs' diagram, the table's repairs")
        .isEqualTo(changes(Transitions.REPAIRS));
  }

  /**
   * A write that keeps the phase (a snapshot still queued or running, a sweep of a row already in
   * review) draws no edge.
   */
  private static Set<String> changes(List<Event> events) {
    return Transitions.edges(events).stream()
        .filter(e -> e.from() != e.to())
        .map(Edge::toString)
        .collect(Collectors.toSet());
  }

  @Test
  void a_malformed_event_is_refused_when_the_table_is_built() {
    assertThatThrownBy(() -> Transitions.REVIEW_RESOLVED.to(Phase.FAILED, "a.decision = 'give_up'"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Transitions.SNAPSHOT.onlyTarget())
        .isInstanceOf(IllegalStateException.class);
  }

  /**
   * The {@code from --> to} pairs of the {@code index}-th mermaid state diagram, labels dropped.
   */
  static Set<String> diagramEdges(String markdown, int index) {
    Matcher block =
        Pattern.compile("```mermaid\\s*\\nstateDiagram-v2\\n(.*?)```", Pattern.DOTALL)
            .matcher(markdown);
    for (int i = 0; i <= index; i++) {
      assertThat(block.find())
          .as("mermaid stateDiagram-v2 number " + (i + 1) + " in " + ARCHITECTURE)
          .isTrue();
    }
    Pattern edge = Pattern.compile("^\\s*(\\S+)\\s*-->\\s*([^\\s:]+)\\s*(?::.*)?$");
    Set<String> edges = new LinkedHashSet<>();
    for (String line : block.group(1).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      Matcher m = edge.matcher(line);
      assertThat(m.matches()).as("not an edge: " + line).isTrue();
      edges.add(m.group(1) + " --> " + m.group(2));
    }
    return edges;
  }

  /**
   * The update {@code event}'s statements make, without the lease fence (LeaseFencingTest and the
   * others hold that): its phases and its SET, on row {@code id}. Returns the phase after, or null
   * when the table does not permit the event there.
   */
  private Phase apply(Event event, String id, Map<String, String> arguments) throws SQLException {
    String sql =
        "UPDATE app_generation_operations o SET "
            + event.set()
            + " FROM (SELECT ?::text AS status, ?::text AS decision, ?::text AS ended) a"
            + " WHERE o.operation_id = ? AND "
            + event.permittedWhen()
            + " RETURNING o.phase";
    try (Connection connection = db.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, arguments.get("status"));
      statement.setString(2, arguments.get("decision"));
      statement.setString(3, arguments.get("ended"));
      statement.setString(4, id);
      try (ResultSet rs = statement.executeQuery()) {
        return rs.next() ? Phase.parse(rs.getString(1)) : null;
      }
    }
  }

  private boolean tryUpdate(String id, String phase, String action) throws SQLException {
    try {
      return update(
              "UPDATE app_generation_operations SET phase = ?, next_action = ?"
                  + " WHERE operation_id = ?",
              phase,
              action,
              id)
          == 1;
    } catch (PSQLException e) {
      assertThat(e.getServerErrorMessage().getConstraint())
          .as("refused for its pairing")
          .isEqualTo("phase_matches_next_action");
      return false;
    }
  }

  private void insert(String id, Phase phase) throws SQLException {
    update(
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model,"
            + " request) VALUES (?, ?, ?, 'image-v1', '{}')",
        id,
        phase.wire(),
        phase.nextAction().wire());
  }

  /** Row {@code id} in {@code phase} (with its next action), created anew. */
  private void reset(String id, Phase phase) throws SQLException {
    update("DELETE FROM app_generation_operations WHERE operation_id = ?", id);
    insert(id, phase);
  }

  private int update(String sql, String... texts) throws SQLException {
    try (Connection connection = db.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < texts.length; i++) {
        statement.setString(i + 1, texts[i]);
      }
      return statement.executeUpdate();
    }
  }

  private static String flat(String sql) {
    return sql.replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")").strip();
  }
}
