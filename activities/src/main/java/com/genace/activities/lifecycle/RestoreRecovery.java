package com.genace.activities.lifecycle;

import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.SweepPosition;
import com.genace.activities.recovery.GenerationRuns;
import com.genace.activities.recovery.HistoryEvidence;
import com.genace.activities.recovery.HistoryRepair;
import com.genace.activities.recovery.OperationHistory;
import com.genace.activities.recovery.RowRecreation;
import com.genace.activities.recovery.RunRestarts;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code ops recover --since TIME}: after a restore of either store, brings the two back to one
 * truth. Two walks:
 *
 * <ol>
 *   <li>Temporal's visibility: every {@code generation/*} workflow started or closed since {@code
 *       TIME} (the backup's timestamp). A row the ledger lost is written again at the phase its
 *       history shows ({@code recreated}); a row behind its history moves forward ({@link
 *       HistoryRepair}, or {@code recovered} while the run still runs);
 *   <li>the ledger's unfinished rows: one whose workflow Temporal no longer holds (or that closed)
 *       is decided as the sweeper decides it: a job the row holds is observed and delivered, a row
 *       with none goes to review, never a POST.
 * </ol>
 *
 * <p>Dry run unless {@code apply}: the same decisions, reported. Idempotent: what it did is what
 * the next run finds done. Every write is fenced by the revision read and a free lease.
 */
public final class RestoreRecovery {

  /** What one operation needed. */
  public record Step(String operationId, String action, String detail, boolean needsPerson) {}

  /** What a run did (or would do), and how much it read. */
  public record Report(int workflowsListed, int rowsChecked, List<Step> steps) {}

  private final OperationsLedger ledger;
  private final WorkflowClient client;
  private final OperationHistory history;
  private final HistoryRepair repair;
  private final RowRecreation recreation;

  public RestoreRecovery(
      OperationsLedger ledger,
      WorkflowClient client,
      OperationHistory history,
      ArtifactStore store,
      String owner,
      boolean apply) {
    this.ledger = ledger;
    this.client = client;
    this.history = history;
    RunRestarts restarts = new RunRestarts(client);
    this.repair = new HistoryRepair(ledger, store, restarts, owner, apply);
    this.recreation = new RowRecreation(ledger, store, restarts, owner, apply);
  }

  /** Both walks; {@code progress} hears a line every 100 operations. */
  public Report run(Instant since, Consumer<String> progress) {
    List<Step> steps = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    List<String> listed = new GenerationRuns(client).startedOrClosedSince(since);
    for (String operationId : listed) {
      if (seen.add(operationId)) {
        check(operationId).ifPresent(steps::add);
        report(progress, seen.size(), "workflows", steps);
      }
    }
    int rows = 0;
    SweepPosition position = SweepPosition.START;
    while (true) {
      List<OperationsLedger.Unfinished> page = ledger.unfinishedAfter(position, 500);
      for (OperationsLedger.Unfinished unfinished : page) {
        rows++;
        if (seen.add(unfinished.operationId())) {
          check(unfinished.operationId()).ifPresent(steps::add);
        }
        report(progress, rows, "unfinished rows", steps);
        position = unfinished.position();
      }
      if (page.size() < 500) {
        break;
      }
    }
    return new Report(listed.size(), rows, steps);
  }

  private static void report(Consumer<String> progress, int n, String what, List<Step> steps) {
    if (n % 100 == 0) {
      progress.accept(n + " " + what + " checked, " + steps.size() + " to repair so far");
    }
  }

  /** What the operation needs, if anything. */
  Optional<Step> check(String operationId) {
    Optional<OperationRow> found = ledger.find(operationId);
    if (found.isEmpty()) {
      RowRecreation.Recreated recreated = recreation.recreate(history.read(operationId));
      return Optional.of(
          new Step(operationId, recreated.action(), recreated.detail(), recreated.needsPerson()));
    }
    OperationRow row = found.get();
    if (row.phase().isTerminal()) {
      return Optional.empty();
    }
    Optional<String> closed = OrphanStatus.describe(client, operationId);
    HistoryEvidence held = history.read(operationId);
    if (closed.isPresent()) {
      return Optional.of(step(operationId, repair.afterClose(row, held, closed.get())));
    }
    return repair.behindRunning(row, held).map(repaired -> step(operationId, repaired));
  }

  private static Step step(String operationId, HistoryRepair.Repaired repaired) {
    HistoryRepair.Outcome outcome = repaired.outcome();
    return new Step(
        operationId,
        outcome.name().toLowerCase(Locale.ROOT),
        repaired.detail(),
        outcome == HistoryRepair.Outcome.SWEPT_TO_REVIEW
            || outcome == HistoryRepair.Outcome.REVIEW_KEPT);
  }
}
