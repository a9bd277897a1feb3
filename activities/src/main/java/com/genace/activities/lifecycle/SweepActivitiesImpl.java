package com.genace.activities.lifecycle;

import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.SweepCursor;
import com.genace.activities.ledger.SweepPosition;
import com.genace.activities.recovery.GenerationRuns;
import com.genace.activities.recovery.HistoryEvidence;
import com.genace.activities.recovery.HistoryRepair;
import com.genace.activities.recovery.HistoryUnavailableException;
import com.genace.activities.recovery.OperationHistory;
import com.genace.activities.recovery.RowRecreation;
import com.genace.activities.recovery.RunRestarts;
import com.genace.activities.recovery.TemporalHistory;
import com.genace.client.model.Phase;
import com.genace.workflows.lifecycle.SweepActivities;
import com.genace.workflows.lifecycle.SweepReport;
import io.temporal.activity.Activity;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orphan sweeper's step (see {@link SweepActivities#sweepOrphans}): one pass of a walk over
 * every unfinished operation in {@code (phase, created_at)} order, in pages read by keyset from the
 * position stored in the ledger ({@code app_sweep_cursor}); one describe per operation. An orphan
 * (its workflow closed or lost) is decided on both stores: its row and every run Temporal's history
 * holds ({@link HistoryRepair}: ended as a run ended, observing a job a run or the row holds, or in
 * review when neither shows a job), with one fenced write and at most one workflow start.
 *
 * <p>A pass is bounded: at most {@link Bounds#maxPages} pages of {@link Bounds#pageSize}
 * operations, and it stops at the first operation after {@link Bounds#maxPassTime}. After each page
 * (and where it stopped) it moves the stored position, over the generation it read: the next pass,
 * on whichever worker, resumes there, and a pass whose position another pass moved (an overlapping
 * retry or manual run) stops. A pass that reaches the end of the walk sets the position back to the
 * start and ends; the next pass begins a new walk. So every operation that stays unfinished in its
 * phase is checked once per walk, however many old reviews or pending operations precede it (one
 * that changes phase meanwhile, moved by something alive, may be checked twice or not before the
 * next walk).
 */
public final class SweepActivitiesImpl implements SweepActivities {

  /**
   * How much one pass does. The activity's timeouts (SweepWorkflowImpl: 10 minutes to close, a
   * heartbeat per operation within a minute) must leave room for {@code maxPassTime} plus one
   * describe.
   */
  public record Bounds(int pageSize, int maxPages, Duration maxPassTime) {

    /** 500 operations a page, 20 pages (10,000 operations) or 2 minutes a pass. */
    public static final Bounds DEFAULT = new Bounds(500, 20, Duration.ofMinutes(2));

    public Bounds {
      if (pageSize < 1 || pageSize > OperationsLedger.MAX_LIST_LIMIT) {
        throw new IllegalArgumentException(
            "sweep page size must be between 1 and " + OperationsLedger.MAX_LIST_LIMIT);
      }
      if (maxPages < 1) {
        throw new IllegalArgumentException("a sweep pass reads at least one page");
      }
      if (maxPassTime == null || maxPassTime.isNegative() || maxPassTime.isZero()) {
        throw new IllegalArgumentException("a sweep pass needs a positive time bound");
      }
    }
  }

  private static final Logger log = LoggerFactory.getLogger(SweepActivitiesImpl.class);

  /** The phases a restore may leave a row in while its run observes or delivers a job. */
  private static final Set<Phase> MAY_BE_BEHIND =
      EnumSet.of(Phase.PENDING, Phase.SUBMITTING, Phase.IN_REVIEW);

  private final OperationsLedger ledger;
  private final WorkflowClient client;
  private final OperationHistory history;
  private final HistoryRepair repair;
  private final RowRecreation recreation;
  private final GenerationRuns runs;
  private final String owner;
  private final OrphanListener listener;
  private final Bounds bounds;

  /**
   * @param store where deliveries put their artifacts: a run that completed delivered repairs its
   *     row only when the store holds them
   */
  public SweepActivitiesImpl(
      OperationsLedger ledger,
      WorkflowClient client,
      ArtifactStore store,
      String owner,
      OrphanListener listener) {
    this(ledger, client, new TemporalHistory(client), store, owner, listener, Bounds.DEFAULT);
  }

  public SweepActivitiesImpl(
      OperationsLedger ledger,
      WorkflowClient client,
      OperationHistory history,
      ArtifactStore store,
      String owner,
      OrphanListener listener,
      Bounds bounds) {
    this.ledger = ledger;
    this.client = client;
    this.history = history;
    RunRestarts restarts = new RunRestarts(client);
    this.repair = new HistoryRepair(ledger, store, restarts, owner);
    this.recreation = new RowRecreation(ledger, store, restarts, owner, true);
    this.runs = new GenerationRuns(client);
    this.owner = owner;
    this.listener = listener;
    this.bounds = bounds;
  }

  @Override
  public SweepReport sweepOrphans() {
    long started = System.nanoTime();
    long deadline = started + bounds.maxPassTime().toNanos();
    SweepCursor cursor = ledger.sweepCursor(owner);
    long generation = cursor.generation();
    SweepPosition position = cursor.position();
    List<String> orphans = new ArrayList<>();
    List<String> behindRunning = new ArrayList<>();
    int checked = 0;
    int pages = 0;
    boolean walkCompleted = false;
    while (pages < bounds.maxPages()) {
      List<OperationsLedger.Unfinished> page = ledger.unfinishedAfter(position, bounds.pageSize());
      pages++;
      SweepPosition reached = position;
      boolean outOfTime = false;
      for (OperationsLedger.Unfinished operation : page) {
        // Out of time: stop, but never inside a group created in the same microsecond (the
        // position, a phase and a time, would skip the rest of it).
        if (checked > 0
            && !operation.position().equals(reached)
            && System.nanoTime() - deadline > 0) {
          outOfTime = true;
          break;
        }
        check(operation, orphans, behindRunning);
        checked++;
        reached = operation.position();
      }
      walkCompleted = !outOfTime && page.size() < bounds.pageSize();
      SweepPosition next = walkCompleted ? SweepPosition.START : reached;
      if (!ledger.moveSweepCursor(generation, next, walkCompleted, owner)) {
        log.info("sweep pass stops: another pass moved the position since this one read it");
        walkCompleted = false;
        break;
      }
      generation++;
      position = next;
      if (walkCompleted || outOfTime || System.nanoTime() - deadline > 0) {
        break;
      }
    }
    recreateLostRows(behindRunning);
    long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
    SweepReport report =
        new SweepReport(checked, orphans, pages, elapsedMillis, walkCompleted, behindRunning);
    log.info(
        "sweep pass: checked {} unfinished operation(s) in {} page(s) and {} ms, {} orphan(s), {}"
            + " written back beside a running run; {}",
        checked,
        pages,
        elapsedMillis,
        orphans.size(),
        behindRunning.size(),
        walkCompleted ? "walk complete" : "the next pass resumes after " + position);
    listener.passEnded(report);
    return report;
  }

  private void check(
      OperationsLedger.Unfinished operation, List<String> orphans, List<String> behindRunning) {
    heartbeat(operation.operationId());
    OrphanStatus.Described described = OrphanStatus.describeRun(client, operation.operationId());
    Optional<String> closed = described.closed();
    if (closed.isEmpty()) {
      if (described.pastDispatch() && MAY_BE_BEHIND.contains(operation.phase())) {
        catchUp(operation, behindRunning);
      }
      return;
    }
    Optional<OperationRow> row = ledger.find(operation.operationId());
    if (row.isEmpty() || row.get().revision() != operation.revision()) {
      log.info(
          "operation {}: workflow {} but its row changed since the page was read; the next walk"
              + " looks again",
          operation.operationId(),
          closed.get());
      return;
    }
    HistoryEvidence history;
    try {
      history = this.history.read(operation.operationId());
    } catch (HistoryUnavailableException e) {
      // Nothing may be decided on what Temporal could not say: the next walk looks again.
      log.warn("operation {}: {}; left to the next walk", operation.operationId(), e.getMessage());
      return;
    }
    HistoryRepair.Repaired repaired = repair.afterClose(row.get(), history, closed.get());
    if (repaired.outcome() == HistoryRepair.Outcome.CHANGED) {
      log.info(
          "operation {}: workflow {} but its row changed or is leased; the next walk looks again",
          operation.operationId(),
          closed.get());
      return;
    }
    log.warn(
        "operation {} was {} while its workflow was {}: {}",
        operation.operationId(),
        operation.phase().wire(),
        closed.get(),
        repaired.detail());
    orphans.add(operation.operationId());
    listener.orphanFound(operation.operationId(), closed.get());
  }

  /**
   * A row short of the job its running run observes or delivers (a restore took it back to before
   * the POST's response): moved forward to that job, on the poll schedule, whose poll loop then
   * completes the run's waiting observation. The run never dispatches again.
   */
  private void catchUp(OperationsLedger.Unfinished operation, List<String> behindRunning) {
    String operationId = operation.operationId();
    Optional<OperationRow> row = ledger.find(operationId);
    if (row.isEmpty() || row.get().revision() != operation.revision()) {
      return; // it moved since the page was read: something alive moved it
    }
    Optional<HistoryRepair.Repaired> repaired;
    try {
      repaired = repair.behindRunning(row.get(), history.read(operationId));
    } catch (HistoryUnavailableException e) {
      log.warn("operation {}: {}; left to the next walk", operationId, e.getMessage());
      return;
    }
    repaired
        .filter(r -> r.outcome() == HistoryRepair.Outcome.OBSERVING)
        .ifPresent(
            r -> {
              log.warn(
                  "operation {} was {} behind its running workflow: {}",
                  operationId,
                  operation.phase().wire(),
                  r.detail());
              behindRunning.add(operationId);
            });
  }

  /**
   * Rows the ledger lost while their runs go on (a restore older than the operation), found by
   * listing up to a pass's bound of running generation workflows, newest first where the server
   * orders them, against the ledger in pages: each missing one whose history shows it was
   * registered is written again at the phase that history shows ({@link RowRecreation}). One whose
   * dispatch is pending is left to the next pass: its POST may be in flight.
   */
  private void recreateLostRows(List<String> behindRunning) {
    List<String> running;
    try {
      running = runs.running(bounds.pageSize() * bounds.maxPages());
    } catch (RuntimeException e) {
      log.warn("sweep pass could not list the running workflows: {}", e.toString());
      return;
    }
    for (int from = 0; from < running.size(); from += bounds.pageSize()) {
      List<String> page = running.subList(from, Math.min(running.size(), from + bounds.pageSize()));
      for (String operationId : ledger.recovery().missing(page)) {
        heartbeat(operationId);
        recreate(operationId).ifPresent(behindRunning::add);
      }
    }
  }

  private Optional<String> recreate(String operationId) {
    OrphanStatus.Described described = OrphanStatus.describeRun(client, operationId);
    if (described.closed().isPresent() || described.dispatching()) {
      return Optional.empty(); // closed since it was listed, or its POST may be in flight
    }
    HistoryEvidence held;
    try {
      held = history.read(operationId);
    } catch (HistoryUnavailableException e) {
      log.warn("operation {}: {}; left to the next pass", operationId, e.getMessage());
      return Optional.empty();
    }
    if (!held.registered()) {
      return Optional.empty(); // not registered yet: its first dispatch does it
    }
    RowRecreation.Recreated recreated = recreation.recreate(held);
    log.warn(
        "operation {}: its workflow runs but the ledger held no row: {}",
        operationId,
        recreated.detail());
    return recreated.action().equals("recreated") ? Optional.of(operationId) : Optional.empty();
  }

  private static void heartbeat(String operationId) {
    try {
      Activity.getExecutionContext().heartbeat(operationId);
    } catch (IllegalStateException notInActivity) {
      // Called directly (tests): nothing to report to.
    }
  }
}
