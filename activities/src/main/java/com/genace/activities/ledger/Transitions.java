package com.genace.activities.ledger;

import static com.genace.client.model.Phase.ABANDONED;
import static com.genace.client.model.Phase.DELIVERED;
import static com.genace.client.model.Phase.DELIVERING;
import static com.genace.client.model.Phase.FAILED;
import static com.genace.client.model.Phase.IN_REVIEW;
import static com.genace.client.model.Phase.OBSERVING;
import static com.genace.client.model.Phase.PENDING;
import static com.genace.client.model.Phase.SUBMITTING;

import com.genace.client.model.Phase;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The operation's course, in one table: for each event of the history, the phases it may leave and
 * where it goes (the next action is the phase's own: {@link Phase#nextAction()}, which the row
 * rules' trigger enforces). The statements that make a transition take from here the phases they
 * are permitted to leave ({@link Event#permittedWhen}), the {@code phase} and {@code next_action}
 * they set ({@link Event#set}) and the event they write in the history ({@link Event#name}); the
 * statements' other columns stay with them. TransitionTableTest holds this table, the trigger and
 * the diagram of docs/architecture.md to each other.
 *
 * <p>An event that can go to more than one phase lists a move per phase with the condition on the
 * statement's bound arguments ({@code a.…}) that chooses it, in order; the last may be {@code
 * otherwise} (no condition) or {@link Event#otherwiseStays} (the phase is kept).
 */
final class Transitions {

  private Transitions() {}

  /** pending → submitting: the evidence that a POST may leave, committed before it does. */
  static final Event SUBMITTING_EVENT = event("submitting").from(PENDING).to(SUBMITTING);

  /** submitting → observing: Genace accepted the POST. */
  static final Event ACCEPTED = event("accepted").from(SUBMITTING).to(OBSERVING);

  /** submitting → pending: the POST provably created nothing. */
  static final Event NOT_SENT = event("not_sent").from(SUBMITTING).to(PENDING);

  /** submitting → failed: Genace refused the request and created nothing. */
  static final Event REFUSED = event("refused").from(SUBMITTING).to(FAILED);

  /** pending, submitting or observing → in_review: the outcome is uncertain. */
  static final Event REVIEW_OPENED =
      event("review_opened").from(PENDING, SUBMITTING, OBSERVING).to(IN_REVIEW);

  /** A newer snapshot of the remote job: succeeded delivers, failed or canceled fails. */
  static final Event SNAPSHOT =
      event("snapshot")
          .from(OBSERVING)
          .to(DELIVERING, "a.status = 'succeeded'")
          .to(FAILED, "a.status IN ('failed', 'canceled')")
          .otherwiseStays();

  /** delivering → delivered: every artifact is in the store. */
  static final Event DELIVERED_EVENT = event("delivered").from(DELIVERING).to(DELIVERED);

  /** Cancelled: never from submitting, as a POST may have left. */
  static final Event CANCELLED =
      event("cancelled").from(PENDING, OBSERVING, DELIVERING, IN_REVIEW).to(ABANDONED);

  /** An operator's (or the evidence's) resolution of a review. */
  static final Event REVIEW_RESOLVED =
      event("review_resolved")
          .from(IN_REVIEW)
          .to(OBSERVING, "a.decision = 'found_remote_job'")
          .to(PENDING, "a.decision = 'not_submitted'")
          .to(ABANDONED);

  /** The orphan sweeper: the operation's workflow closed while it was unfinished. */
  static final Event WORKFLOW_CLOSED =
      event("workflow_closed")
          .from(PENDING, SUBMITTING, OBSERVING, DELIVERING, IN_REVIEW)
          .to(IN_REVIEW);

  /**
   * The ledger is behind the other store: Temporal's history (or the row's own remote job id) holds
   * a job Genace accepted, which the row observes from now on (after a restore of the ledger).
   */
  static final Event RECOVERED =
      event("recovered").from(PENDING, SUBMITTING, IN_REVIEW).to(OBSERVING);

  /**
   * The ledger is behind the other store: Temporal's history holds how the operation ended, and the
   * row ends the same way.
   */
  static final Event RECOVERED_END =
      event("recovered_end")
          .from(PENDING, SUBMITTING, OBSERVING, DELIVERING, IN_REVIEW)
          .to(DELIVERED, "a.ended = 'delivered'")
          .to(FAILED, "a.ended = 'failed'")
          .to(ABANDONED);

  /** The table. */
  static final List<Event> ALL =
      List.of(
          SUBMITTING_EVENT,
          ACCEPTED,
          NOT_SENT,
          REFUSED,
          REVIEW_OPENED,
          SNAPSHOT,
          DELIVERED_EVENT,
          CANCELLED,
          REVIEW_RESOLVED,
          WORKFLOW_CLOSED,
          RECOVERED,
          RECOVERED_END);

  /** One row of the table: from these phases to {@code to} (null: stays), when {@code when}. */
  record Move(Set<Phase> from, Phase to, String when) {

    /** The phase the operation is in after the move from {@code phase}. */
    Phase after(Phase phase) {
      return to == null ? phase : to;
    }
  }

  /** One event of the history and the moves it makes. */
  record Event(String name, Set<Phase> leaves, List<Move> moves) {

    Event {
      leaves =
          Collections.unmodifiableSet(
              leaves.isEmpty() ? EnumSet.noneOf(Phase.class) : EnumSet.copyOf(leaves));
      moves = List.copyOf(moves);
    }

    Event from(Phase first, Phase... more) {
      return new Event(name, EnumSet.of(first, more), moves);
    }

    /** Goes to {@code phase} when {@code condition} holds (and no earlier move's did). */
    Event to(Phase phase, String condition) {
      return with(new Move(leaves, Objects.requireNonNull(phase), condition));
    }

    /** Goes to {@code phase} (otherwise, after conditional moves). */
    Event to(Phase phase) {
      return with(new Move(leaves, Objects.requireNonNull(phase), null));
    }

    /** Otherwise the phase (and its next action) stay as they are. */
    Event otherwiseStays() {
      return with(new Move(leaves, null, null));
    }

    private Event with(Move move) {
      if (leaves.isEmpty()) {
        throw new IllegalStateException(name + ": the phases it leaves come first");
      }
      if (!moves.isEmpty() && moves.get(moves.size() - 1).when() == null) {
        throw new IllegalStateException(name + ": nothing comes after an unconditional move");
      }
      List<Move> more = new ArrayList<>(moves);
      more.add(move);
      return new Event(name, leaves, more);
    }

    /** The phases a statement making this event is permitted to leave: {@code o.phase IN (…)}. */
    String permittedWhen() {
      List<String> phases = leaves.stream().map(p -> "'" + p.wire() + "'").toList();
      return phases.size() == 1
          ? "o.phase = " + phases.get(0)
          : "o.phase IN (" + String.join(", ", phases) + ")";
    }

    /**
     * The {@code phase} and {@code next_action} assignments of the statement's SET list; {@code
     * next_action} only where some move changes it (a move between two phases of the same action
     * leaves it as it is).
     */
    String set() {
      String phase =
          "phase = " + choose(m -> m.to() == null ? null : "'" + m.to().wire() + "'", "o.phase");
      if (!changesAction()) {
        return phase;
      }
      return phase
          + ",\nnext_action = "
          + choose(
              m -> m.to() == null ? null : "'" + m.to().nextAction().wire() + "'", "o.next_action");
    }

    private boolean changesAction() {
      return moves.stream()
          .anyMatch(
              m ->
                  m.to() != null
                      && leaves.stream().anyMatch(p -> p.nextAction() != m.to().nextAction()));
    }

    private String choose(Function<Move, String> value, String kept) {
      if (moves.size() == 1 && moves.get(0).when() == null) {
        String only = value.apply(moves.get(0));
        return only == null ? kept : only;
      }
      StringBuilder sql = new StringBuilder("CASE");
      String otherwise = kept;
      for (Move move : moves) {
        String v = value.apply(move);
        if (move.when() == null) {
          otherwise = v == null ? kept : v;
        } else {
          sql.append(" WHEN ").append(move.when()).append(" THEN ").append(v == null ? kept : v);
        }
      }
      return sql.append(" ELSE ").append(otherwise).append(" END").toString();
    }

    /**
     * Every (from, to) pair this event may make, a phase it keeps included (also where no move is
     * unconditional: the SET's {@code ELSE} keeps the phase).
     */
    Set<Edge> edges() {
      Set<Edge> edges =
          moves.stream()
              .flatMap(m -> m.from().stream().map(p -> new Edge(p, m.after(p))))
              .collect(Collectors.toCollection(LinkedHashSet::new));
      if (moves.get(moves.size() - 1).when() != null) {
        leaves.forEach(p -> edges.add(new Edge(p, p)));
      }
      return edges;
    }

    /** The one phase the event leaves; for statements that write it into the history. */
    Phase onlyFrom() {
      if (leaves.size() != 1) {
        throw new IllegalStateException(name + " leaves more than one phase: " + leaves);
      }
      return leaves.iterator().next();
    }

    /** The one phase every move goes to; for statements that write it into the history. */
    Phase onlyTarget() {
      Set<Phase> targets = moves.stream().map(Move::to).collect(Collectors.toSet());
      if (targets.size() != 1 || targets.contains(null)) {
        throw new IllegalStateException(name + " goes to more than one phase: " + moves);
      }
      return targets.iterator().next();
    }
  }

  /** An edge of the diagram: from one phase to another (or the same). */
  record Edge(Phase from, Phase to) {
    @Override
    public String toString() {
      return from.wire() + " --> " + to.wire();
    }
  }

  /**
   * The repairs from Temporal's history: moves of a row that fell behind the other store, drawn
   * apart from the operation's own course (docs/architecture.md).
   */
  static final List<Event> REPAIRS = List.of(RECOVERED, RECOVERED_END);

  /** Every edge of the table. */
  static Set<Edge> edges() {
    return edges(ALL);
  }

  /** Every edge of {@code events}. */
  static Set<Edge> edges(List<Event> events) {
    return events.stream()
        .flatMap(e -> e.edges().stream())
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }

  private static Event event(String name) {
    if (!name.matches("[a-z][a-z_]*")) {
      throw new IllegalArgumentException("event must be lower_snake_case: " + name);
    }
    return new Event(name, EnumSet.noneOf(Phase.class), List.of());
  }
}
